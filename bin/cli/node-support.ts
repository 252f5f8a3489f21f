/**
 * Which Node.js versions polyeval supports: 22 LTS and 24 (Lambda runs 22). Node 20 reached
 * end of life in April 2026: polyeval still runs on ≥ 20.19, and `doctor` says to upgrade.
 */
export const SUPPORTED_NODE_MAJORS = [22, 24] as const;

export interface NodeSupport {
  version: string;
  status: 'supported' | 'end-of-life' | 'untested';
  detail: string;
}

/** How polyeval stands with a Node version (`process.version`, e.g. `v22.11.0`). */
export function nodeSupport(version: string): NodeSupport {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? NaN);
  const supported = SUPPORTED_NODE_MAJORS.join(' and ');
  if ((SUPPORTED_NODE_MAJORS as readonly number[]).includes(major))
    return { version, status: 'supported', detail: `supported (polyeval supports Node ${supported})` };
  if (major === 20)
    return {
      version,
      status: 'end-of-life',
      detail: `Node 20 is past its end of life (April 2026): polyeval still runs on it, but upgrade to Node ${supported}`,
    };
  return { version, status: 'untested', detail: `not tested: polyeval supports Node ${supported}` };
}

/** kotlinc settings of a run (DESIGN §7), recorded in its manifest through the toolchains. */
export function kotlinFlags(version: string | null | undefined): string[] {
  return version ? ['-language-version', version, '-api-version', version] : [];
}

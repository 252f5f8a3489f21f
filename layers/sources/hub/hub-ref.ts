/**
 * `hf://datasets/<owner>/<name>/<path-in-repo>[@revision]` refs. The Hub's own form
 * `hf://datasets/<owner>/<name>@<revision>/<path>` is accepted too. A revision with a slash
 * (`refs/convert/parquet`) is written URL-encoded (`refs%2Fconvert%2Fparquet`).
 */
import { InputError } from '../../core/errors.ts';

/** A file in a Hub dataset repository at a revision. */
export interface HubFileRef {
  /** `owner/name` */
  repo: string;
  path: string;
  revision: string;
}

const PREFIX = 'hf://datasets/';

/** True when `ref` names a file on the Hub. */
export function isHubRef(ref: string): boolean {
  return ref.startsWith('hf://');
}

/** Parses an `hf://datasets/...` ref; anything malformed is an `InputError` naming the ref. */
export function parseHubRef(ref: string): HubFileRef {
  if (!ref.startsWith(PREFIX)) {
    throw new InputError('expected hf://datasets/<owner>/<name>/<path>[@revision] (only dataset repositories are supported)', {
      file: ref,
    });
  }
  const parts = ref.slice(PREFIX.length).split('/');
  const owner = parts[0] ?? '';
  let name = parts[1] ?? '';
  let path = parts.slice(2).join('/');
  let revision = 'main';
  const at = name.indexOf('@');
  if (at >= 0) {
    revision = decodeURIComponent(name.slice(at + 1));
    name = name.slice(0, at);
  } else {
    const last = path.lastIndexOf('@');
    if (last >= 0) {
      revision = decodeURIComponent(path.slice(last + 1));
      path = path.slice(0, last);
    }
  }
  checkRepo(`${owner}/${name}`, ref);
  if (path === '' || path.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) {
    throw new InputError('missing or invalid path inside the repository', { file: ref });
  }
  if (revision === '') throw new InputError('empty revision after "@"', { file: ref });
  return { repo: `${owner}/${name}`, path, revision };
}

/** The canonical ref string of a Hub file (revision omitted when it is `main`). */
export function formatHubRef(file: HubFileRef): string {
  const rev = file.revision === 'main' ? '' : `@${encodeURIComponent(file.revision)}`;
  return `${PREFIX}${file.repo}/${file.path}${rev}`;
}

/** Throws an `InputError` unless `repo` is `owner/name`. */
export function checkRepo(repo: string, label: string = repo): void {
  if (!/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/.test(repo)) {
    throw new InputError(`invalid dataset repository "${repo}": expected <owner>/<name>`, { file: label });
  }
}

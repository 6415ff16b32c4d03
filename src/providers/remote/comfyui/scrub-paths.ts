/**
 * Server paths taken out of a message before it reaches a client: an absolute path (POSIX, a
 * Windows drive or a UNC share) keeps its last two segments, `…/output/x.png`, so the file is
 * still named but the server's layout (a home folder, an install path) is not; a user's name is
 * never one of them (`/home/alice/x.png` is `…/x.png`).
 */
export function scrubPaths(text: string): string {
  return (
    text
      // Quoted, as Python shows a path: it may hold spaces.
      .replace(
        /(['"])((?:\/|[A-Za-z]:[\\/]|\\\\)[^'"\n]*)\1/g,
        (_, quote: string, path: string) => `${quote}${shorten(path)}${quote}`,
      )
      // Unquoted: a Windows drive path, or any word with a backslash between segments.
      .replace(
        /(?<![\w…])(?:[A-Za-z]:[\\/]|\\\\)[^\s'"<>|()[\]{}]*|[^\s'"\\<>|()[\]{}]+(?:\\[^\s'"\\<>|()[\]{}]*)+/g,
        (path) => keepEnd(path),
      )
      // Unquoted POSIX paths of two or more segments (not a URL's path, not a ratio such as 1/2).
      .replace(/(?<![\w.~:/\\…-])\/(?:[^\s'"`/:;,()<>[\]{}|]+\/)+[^\s'"`/:;,()<>[\]{}|]*/g, (path) => keepEnd(path))
  );
}

/** A path shortened, with the sentence's punctuation after it kept. */
function keepEnd(path: string): string {
  const end = /[.,:;]+$/.exec(path)?.[0] ?? '';
  return shorten(path.slice(0, path.length - end.length)) + end;
}

/** Folders whose child is a person's name: a path's second-to-last segment under one of these is not kept. */
const HOME_FOLDERS = new Set(['home', 'users']);

/**
 * `…/` and the path's last two segments (or its last one, when it has no more, or when the other would be a user name:
 * /home/alice/x.png is `…/x.png`).
 */
function shorten(path: string): string {
  const segments = path.split(/[\\/]+/).filter((segment) => segment !== '' && !/^[A-Za-z]:$/.test(segment));
  if (segments.length === 0) return path;
  const underHome = segments.length >= 3 && HOME_FOLDERS.has(segments[segments.length - 3].toLowerCase());
  return `…/${segments.slice(underHome ? -1 : -2).join('/')}`;
}

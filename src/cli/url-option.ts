import { UsageError } from './output.js';

/** A scheme before `//`: what a URL someone typed starts with. */
const SCHEME = /^[a-z][a-z\d+.-]*:\/\//i;
/** A host (a name, an IPv4 or a bracketed IPv6 address), an optional port and path: a URL whose scheme was left out. */
const HOST_FIRST = /^(?:[\w-]+(?:\.[\w-]+)*|\[[\da-f:.]+\])(?::\d+)?(?:[/?#]\S*)?$/i;

/**
 * An http(s) URL given as `label` (`--url`, `IMGTASK_URL`, `--forward-to`), as given; UsageError
 * otherwise. A host and port with no scheme (`127.0.0.1:8080`, or `localhost:3000`, which a URL
 * parser reads as the scheme `localhost:`) is told the `http://` it lacks, with the URL to use.
 */
export function httpUrlOption(text: string, label: string, example: string): string {
  if (!SCHEME.test(text)) {
    if (HOST_FIRST.test(text))
      throw new UsageError(`${label} ${text} needs http:// or https:// in front: use http://${text}`);
    throw new UsageError(`${label} ${text} is not a URL (such as ${example})`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${label} ${text} is not a URL (such as ${example})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${label} must be an http or https URL, not ${url.protocol}`);
  return text;
}

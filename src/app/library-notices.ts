/**
 * Process warnings from libraries that tell the operator nothing they can act on in this
 * service: the AWS SDK's notice that its future versions will need a newer Node.js
 * (`NodeVersionSupportWarning: The AWS SDK for JavaScript (v3) …`, once per process, when the
 * first S3 client is built; older SDKs call it NodeDeprecationWarning). The engines field of
 * package.json is where the supported Node.js versions are stated.
 */
const LIBRARY_NOTICES: readonly RegExp[] = [/^Node\w*Warning: The AWS SDK for JavaScript/];

const isLibraryNotice = (warning: Error): boolean => LIBRARY_NOTICES.some((pattern) => pattern.test(warning.message));

let installed = false;

/**
 * Keeps the library notices above out of the output: Node's own warning printer (and any
 * listener there before) is wrapped so that it sees every other warning as before. Once per
 * process; listeners added later are not wrapped.
 */
export function quietLibraryNotices(): void {
  if (installed) return;
  installed = true;
  const earlier = process.listeners('warning');
  for (const listener of earlier) process.removeListener('warning', listener);
  process.on('warning', (warning) => {
    if (isLibraryNotice(warning)) return;
    for (const listener of earlier) listener.call(process, warning);
  });
}

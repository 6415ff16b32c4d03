/**
 * The longest lane name an operator may pause: names from the config are far shorter, and a bound keeps a pasted blob
 * out of the store.
 */
const LANE_NAME_MAX = 256;

/** C0 and C1 control characters (a newline, an escape sequence) and DEL. */
const isControl = (code: number): boolean => code < 0x20 || (code >= 0x7f && code <= 0x9f);

/**
 * Why `name` cannot name a lane an operator pauses or resumes, or null when it can. Lanes are
 * names the config makes (`image.rate`, `gpu-1+gpu-2`, `video:gpu-1`), so an unknown one is
 * allowed (a lane can be paused before its first item); an empty one or one with control
 * characters (which would garble a terminal listing) never is.
 */
export function laneNameProblem(name: string): string | null {
  if (name.length === 0) return 'the lane name is empty';
  if (name.length > LANE_NAME_MAX) return `the lane name is longer than ${LANE_NAME_MAX} characters`;
  if ([...name].some((char) => isControl(char.codePointAt(0) ?? 0))) return 'the lane name has control characters';
  return null;
}

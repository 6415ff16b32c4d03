// What ComfyUI's validation does to a literal input value is Python's int()/float()/str()/bool(),
// and its messages print values the way Python does: these helpers reproduce both for JSON values.

/** A Python exception: its type name (as full_type_name prints it) and str(exception). */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

const pyTypeName = (value: unknown): string =>
  value === null
    ? 'NoneType'
    : Array.isArray(value)
      ? 'list'
      : typeof value === 'object'
        ? 'dict'
        : typeof value === 'string'
          ? 'str'
          : typeof value === 'boolean'
            ? 'bool'
            : 'float';

/** repr() of a JSON value, for messages. */
export function pyRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `'${k}': ${pyRepr(v)}`)
      .join(', ')}}`;
  return String(value);
}

/** A number as Python prints it: a float keeps its ".0". */
export const pyNumber = (value: number, isFloat: boolean): string =>
  isFloat && Number.isInteger(value) ? `${value}.0` : String(value);

/** dict[key], raising KeyError the way Python does (str(KeyError('x')) is "'x'"). */
export function pyItem(container: unknown, key: unknown): unknown {
  if (container === null || typeof container !== 'object' || Array.isArray(container))
    throw new PyError('TypeError', `'${pyTypeName(container)}' object is not subscriptable`);
  if (typeof key !== 'string' || !Object.hasOwn(container, key)) throw new PyError('KeyError', pyRepr(key));
  return (container as Record<string, unknown>)[key];
}

function toInt(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new PyError('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(value)) throw new PyError('OverflowError', 'cannot convert float infinity to integer');
    return Math.trunc(value);
  }
  if (typeof value === 'string') {
    if (/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(value)) return Number.parseInt(value.replaceAll('_', ''), 10);
    throw new PyError('ValueError', `invalid literal for int() with base 10: ${pyRepr(value)}`);
  }
  throw new PyError(
    'TypeError',
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(value)}'`,
  );
}

function toFloat(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const text = value.trim().replaceAll('_', '');
    if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) return Number.parseFloat(text);
    if (/^[+-]?(?:inf|infinity)$/i.test(text))
      return text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    if (/^[+-]?nan$/i.test(text)) return Number.NaN;
    throw new PyError('ValueError', `could not convert string to float: ${pyRepr(value)}`);
  }
  throw new PyError('TypeError', `float() argument must be a string or a real number, not '${pyTypeName(value)}'`);
}

function toStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return pyRepr(value);
}

/** bool(): Python's truthiness ("false" is true, an empty list is false). */
function toBool(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/** The conversion validate_inputs applies to a literal of a declared type (others pass unchanged). */
export function convertLiteral(type: string, value: unknown): unknown {
  if (type === 'INT') return toInt(value);
  if (type === 'FLOAT') return toFloat(value);
  if (type === 'STRING') return toStr(value);
  if (type === 'BOOLEAN') return toBool(value);
  return value;
}

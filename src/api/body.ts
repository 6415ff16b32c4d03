import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import { AppError } from '../domain/errors.js';
import type { ApiEnv } from './api-deps.js';
import { assertBodyArrived } from './cut-short.js';
import { MalformedJsonError, parseRequestJson } from './json-depth.js';
import { type SchemaIssue, toSchemaIssues } from './schema-issues.js';

/**
 * Route families shape their schema rejections differently (docs/api/errors.md):
 * `image` (/image/*, /video/*) echoes the body; `resource` (/tasks, /api-key, /webhook,
 * /destinations) lists the issues under `errors`.
 */
export type SchemaFamily = 'image' | 'resource';

const reject = (response: Response): never => {
  throw new HTTPException(400, { res: response });
};

/**
 * Reads a JSON body and validates it. A body that is not JSON gets the plain-text 400; a
 * body that fails the schema gets the family's rejection shape. An empty body counts as `{}`.
 */
export async function parseJsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  family: SchemaFamily,
  limitBytes: number,
): Promise<z.infer<S>> {
  const text = await readBoundedText(c, limitBytes);
  let input: unknown = {};
  if (text.trim() !== '') {
    try {
      input = parseRequestJson(text);
    } catch (err) {
      if (!(err instanceof MalformedJsonError)) throw err;
      reject(new Response(err.message, { status: 400, headers: { 'content-type': 'text/plain; charset=UTF-8' } }));
    }
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  return rejectSchema(family, toSchemaIssues(result.error, input), input);
}

/** Answers 400 with the family's schema-rejection shape (docs/api/errors.md). */
export function rejectSchema(family: SchemaFamily, issues: SchemaIssue[], input: unknown): never {
  const body = family === 'image' ? { data: input, error: issues, success: false } : { success: false, errors: issues };
  return reject(Response.json(body, { status: 400 }));
}

/** Validates query parameters; failures get the family's rejection shape, like bodies. */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S, family: SchemaFamily): z.infer<S> {
  const input = c.req.query();
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  return rejectSchema(family, toSchemaIssues(result.error, input), input);
}

const tooLarge = (limit: number) =>
  new AppError('VALIDATION_ERROR', `the request body is larger than ${limit} bytes`, { status: 413 });

/**
 * Reads the body as text, refusing more than `limit` bytes with 413. A declared
 * Content-Length is checked before reading (Node's parser never delivers more than it
 * declares), and such a body is read on the adapter's direct path; a chunked body is
 * counted as it streams and cut off at the bound.
 */
async function readBoundedText(c: Context<ApiEnv>, limit: number): Promise<string> {
  const declared = c.req.header('content-length');
  let text = '';
  if (declared !== undefined) {
    if (Number(declared) > limit) throw tooLarge(limit);
    text = await c.req.text();
  } else if (c.req.raw.body) {
    text = (await readStreamBounded(c.req.raw.body, limit, () => tooLarge(limit))).toString('utf8');
  }
  assertBodyArrived(c);
  return text;
}

/** A body stream read whole, cut off with `tooLarge()` as soon as it passes `limit` bytes. */
export async function readStreamBounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

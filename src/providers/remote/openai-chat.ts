import { z } from 'zod';
import { IMAGE_MIME } from '../../domain/media-types.js';
import { ProviderError } from '../../domain/task-status.js';
import { type ProviderHttpResponse, providerRequest } from '../../net/provider-http.js';
import type {
  AltTextWriter,
  ImageJudge,
  ImageRater,
  Judgement,
  JudgeRequest,
  PromptEnhancer,
  RatingLevel,
  SourceImage,
} from '../provider-types.js';
import { excerpt, httpFailure, transportFailure } from './provider-errors.js';

export interface OpenAiChatOptions {
  name: string;
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

type Content = string | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;

/** Images go as data URLs: the provider never fetches a user URL (nor one of ours). */
const dataUrl = (image: SourceImage) => `data:${IMAGE_MIME[image.format]};base64,${image.data.toString('base64')}`;

/**
 * Reads a rating reply: exactly one of the values (trimmed, any case, quotes and a final full
 * stop ignored), or JSON `{ "level": "…" }`. Anything else is not a rating.
 */
function parseLevel(reply: string, levels: readonly RatingLevel[]): string | null {
  const match = (candidate: unknown) =>
    typeof candidate === 'string'
      ? (levels.find((level) => level.value.toLowerCase() === candidate.trim().toLowerCase())?.value ?? null)
      : null;
  const plain = reply.trim().replace(/^["'`]+|["'`.]+$/g, '');
  const direct = match(plain);
  if (direct) return direct;
  const json = /\{[\s\S]*\}/.exec(reply);
  if (!json) return null;
  try {
    return match((JSON.parse(json[0]) as { level?: unknown }).level);
  } catch {
    return null;
  }
}

const JUDGE_SYSTEM = [
  'You review images. You are given what the image was meant to show ("prompt", or null) and a list of criteria.',
  'Answer with strict JSON only, no prose and no code fence, in exactly this shape:',
  '{"prompt": {"passed": true|false, "score": 0..1, "note": "..."} or null, "criteria": [{"criterion": "...", "passed": true|false, "note": "..."}], "summary": "..."}',
  '"prompt" is null when no prompt was given; else score is how well the image matches it (0 not at all, 1 exactly), passed when it clearly does.',
  '"criteria" has one entry per given criterion, in the same order, with the criterion as given.',
  'Each note is one short sentence saying what in the image decided it. "summary" is one sentence.',
].join('\n');

const Verdict = z.object({ passed: z.boolean(), note: z.string() });
const JudgeReply = z.object({
  prompt: Verdict.extend({ score: z.number().min(0).max(1) })
    .nullable()
    .optional(),
  criteria: z.array(Verdict.extend({ criterion: z.string() })).default([]),
  summary: z.string().optional(),
});

/**
 * Reads a judge's reply: JSON (a ```json fence allowed) of the JudgeReply shape, with one
 * answer per asked criterion (matched by order) and a prompt verdict when a prompt was asked.
 * Anything else is REVIEW_FAILED, retried: a model may answer well the next time.
 */
function parseJudgement(provider: string, reply: string, request: JudgeRequest): Judgement {
  const unusable = (why: string) =>
    new ProviderError('REVIEW_FAILED', `${provider} gave an unusable review: ${why}`, {
      retryable: true,
      providerResponse: excerpt(reply),
    });
  const body = (/```(?:json)?\s*([\s\S]*?)```/i.exec(reply)?.[1] ?? /\{[\s\S]*\}/.exec(reply)?.[0] ?? reply).trim();
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw unusable('not JSON');
  }
  const parsed = JudgeReply.safeParse(json);
  if (!parsed.success)
    throw unusable(parsed.error.issues.map((i) => `${i.path.join('.') || 'reply'}: ${i.message}`).join('; '));
  const { prompt, criteria, summary } = parsed.data;
  if (criteria.length !== request.criteria.length)
    throw unusable(`${criteria.length} criteria answered, ${request.criteria.length} asked`);
  if (request.prompt && !prompt) throw unusable('the prompt was not judged');
  const judgement: Judgement = {
    findings: criteria.map((c, i) => ({
      criterion: request.criteria[i],
      passed: c.passed,
      note: c.note.trim() || (c.passed ? 'passed' : 'failed'),
    })),
  };
  if (request.prompt && prompt)
    judgement.prompt = {
      passed: prompt.passed,
      score: Math.round(prompt.score * 100) / 100,
      note: prompt.note.trim() || (prompt.passed ? 'matches' : 'does not match'),
    };
  if (summary?.trim()) judgement.summary = summary.trim();
  return judgement;
}

/**
 * An OpenAI-compatible chat model that can see images (OpenAI, Ollama, vLLM, LM Studio,
 * LiteLLM): `POST {baseUrl}/chat/completions`. It rates against a scale, writes alt text, and
 * rewrites prompts.
 */
export function createOpenAiChat(options: OpenAiChatOptions): {
  rater: ImageRater;
  altText: AltTextWriter;
  enhancer: PromptEnhancer;
  judge: ImageJudge;
} {
  async function complete(
    messages: Array<{ role: 'system' | 'user'; content: Content }>,
    signal: AbortSignal,
    maxTokens: number,
  ): Promise<string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    let res: ProviderHttpResponse;
    try {
      res = await providerRequest(`${options.baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: options.model, messages, max_tokens: maxTokens, temperature: 0 }),
        timeoutMs: options.timeoutMs,
        signal,
      });
    } catch (err) {
      throw transportFailure(options.name, err);
    }
    if (res.status < 200 || res.status >= 300) throw httpFailure(options.name, res);
    let choice: { finish_reason?: string; message?: { content?: string | null; refusal?: string | null } } | undefined;
    try {
      choice = (res.json() as { choices?: (typeof choice)[] }).choices?.[0];
    } catch {
      throw new ProviderError('PROVIDER_ERROR', `${options.name} answered something that is not JSON`, {
        providerResponse: excerpt(res.text()),
      });
    }
    if (choice?.finish_reason === 'content_filter' || choice?.message?.refusal) {
      throw new ProviderError(
        'RESTRICTED_CONTENT',
        `${options.name} refused: ${excerpt(choice?.message?.refusal ?? 'content filter')}`,
        { retryable: false },
      );
    }
    const content = choice?.message?.content;
    if (typeof content !== 'string')
      throw new ProviderError('PROVIDER_ERROR', `${options.name} answered without content`, {
        providerResponse: excerpt(res.text()),
      });
    return content;
  }

  return {
    judge: {
      async judge(image, request, signal) {
        const asked = { prompt: request.prompt ?? null, criteria: request.criteria };
        const reply = await complete(
          [
            { role: 'system', content: JUDGE_SYSTEM },
            {
              role: 'user',
              content: [
                { type: 'text', text: `Judge this image.\n${JSON.stringify(asked)}` },
                { type: 'image_url', image_url: { url: dataUrl(image) } },
              ],
            },
          ],
          signal,
          300 + 120 * request.criteria.length,
        );
        return parseJudgement(options.name, reply, request);
      },
    },
    rater: {
      async rate(image, request, signal) {
        const scale = request.levels.map((level) => `- ${level.value}: ${level.description}`).join('\n');
        const reply = await complete(
          [
            {
              role: 'system',
              content:
                'You rate images against a given scale. Answer with exactly one level value from the scale and nothing else.',
            },
            {
              role: 'user',
              content: [
                {
                  type: 'text',
                  text: `Scale:\n${scale}\n\nWhich single level value best matches this image? Answer with the value only.`,
                },
                { type: 'image_url', image_url: { url: dataUrl(image) } },
              ],
            },
          ],
          signal,
          30,
        );
        const level = parseLevel(reply, request.levels);
        if (!level)
          throw new ProviderError(
            'RATING_FAILED',
            `${options.name} answered "${excerpt(reply).slice(0, 60)}", which is not a level of the scale`,
            { retryable: false },
          );
        return level;
      },
    },
    altText: {
      async describe(image, signal) {
        return complete(
          [
            {
              role: 'system',
              content:
                'You write alt text for images: one plain sentence of at most 150 characters describing what the image shows, for someone who cannot see it. No preamble.',
            },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Write the alt text for this image.' },
                { type: 'image_url', image_url: { url: dataUrl(image) } },
              ],
            },
          ],
          signal,
          80,
        );
      },
    },
    enhancer: {
      async enhance(prompt, negativePrompt, signal) {
        const reply = await complete(
          [
            {
              role: 'system',
              content:
                'You improve prompts for an image generation model: keep the subject and intent, add concrete style, lighting and composition details. Answer with JSON only: {"positive": "...", "negative": "..."} where negative lists things to avoid.',
            },
            { role: 'user', content: JSON.stringify({ prompt, negative_prompt: negativePrompt ?? null }) },
          ],
          signal,
          600,
        );
        try {
          const parsed = JSON.parse(/\{[\s\S]*\}/.exec(reply)?.[0] ?? '') as { positive?: unknown; negative?: unknown };
          if (typeof parsed.positive === 'string' && parsed.positive.trim()) {
            const result: { positive: string; negative?: string } = { positive: parsed.positive.trim().slice(0, 8192) };
            if (typeof parsed.negative === 'string' && parsed.negative.trim())
              result.negative = parsed.negative.trim().slice(0, 8192);
            return result;
          }
        } catch {
          // fall through: use the reply as the prompt
        }
        if (!reply.trim()) throw new ProviderError('PROVIDER_ERROR', `${options.name} gave no prompt`);
        return { positive: reply.trim().slice(0, 8192), ...(negativePrompt ? { negative: negativePrompt } : {}) };
      },
    },
  };
}

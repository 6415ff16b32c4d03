import type { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../../api-deps.js';
import { addTaskCreateRoute } from '../../task-create-route.js';
import { CreatedTaskResponse } from './schemas.js';

/** The body schema lives with the task type (built per config: unknown model ids fail it). */
export { generateBody } from '../../../task-types/image-generate-body.js';
export const GenerateResponse = CreatedTaskResponse;
export type GenerateResponse = CreatedTaskResponse;

export function registerImageGenerate(app: Hono<ApiEnv>, deps: ApiDeps): void {
  addTaskCreateRoute(app, deps, {
    type: 'image.generate',
    path: '/image/generate',
    summary: 'Create an image.generate task',
    accept: ['apiKey'],
  });
}

/**
 * `describe_image` (engine.md §4.4, text-only models): load an image like `read_image` and return the
 * Project vision model's description of it (one call through the injected `VisionDescriberService`).
 * No vision model configured ⇒ failed.
 */
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { ImageLoadError, loadImage } from './image-loader';
import type { ValidatedTool } from './tool-kit';

const schema = z.strictObject({ source: z.string().min(1), prompt: z.string().optional() });
type Args = z.infer<typeof schema>;

export const DEFAULT_DESCRIBE_PROMPT =
  'Describe this image in detail: its subject, layout, any visible text (transcribed exactly), numbers, charts and notable details.';

export function describeImageTool(definition: ToolDefinitionConfig): ValidatedTool<Args> {
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      const vision = ctx.services.visionDescriber;
      if (!vision?.modelId || !vision.describe) {
        yield 'No vision model is configured for this Project (set vision_model), so images cannot be described.';
        return { stop_reason: 'failed' };
      }
      let dataUrl: string;
      try {
        dataUrl = (await loadImage(args.source, ctx.workspaceDir, ctx.signal, ctx.env, ctx.reach)).dataUrl;
      } catch (err) {
        if (!(err instanceof ImageLoadError)) throw err;
        yield err.message;
        return { stop_reason: 'failed' };
      }
      const text = await vision.describe(dataUrl, args.prompt?.trim() || DEFAULT_DESCRIBE_PROMPT, ctx.signal);
      if (!text.trim()) {
        yield `The vision model (${vision.modelId}) returned no description.`;
        return { stop_reason: 'failed' };
      }
      yield text;
      return {};
    },
  };
}

/**
 * `read_image` (engine.md §4.4, vision models): load an image (path or URL, ≤5 MB, png/jpeg/gif/webp)
 * and hand it to the model as the output's image, with a one-line text.
 */
import * as z from 'zod';
import type { ToolDefinitionConfig, ToolResult } from '../../interfaces';
import { ImageLoadError, loadImage } from './image-loader';
import type { ValidatedTool } from './tool-kit';

const schema = z.strictObject({ source: z.string().min(1) });
type Args = z.infer<typeof schema>;

export function readImageTool(definition: ToolDefinitionConfig): ValidatedTool<Args> {
  return {
    definition,
    schema,
    async *run(args, ctx): AsyncGenerator<string, ToolResult> {
      try {
        const img = await loadImage(args.source, ctx.workspaceDir, ctx.signal, ctx.env, ctx.reach);
        yield `Loaded image ${img.where} (${img.mimeType}, ${img.bytes} bytes).`;
        return { images: [img.dataUrl] };
      } catch (err) {
        if (!(err instanceof ImageLoadError)) throw err;
        yield err.message;
        return { stop_reason: 'failed' };
      }
    },
  };
}

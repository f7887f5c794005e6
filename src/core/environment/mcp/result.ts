/**
 * Turns an MCP `tools/call` result into tool output (engine.md §4.6): text parts joined by newlines,
 * images as data URLs, other parts as short bracketed lines, `structuredContent` when there is no
 * content, and `isError` as failure.
 */
export interface McpOutput {
  text: string;
  images: string[];
  isError: boolean;
}

type Part = Record<string, unknown> & { type?: unknown };

function partText(part: Part, images: string[]): string | null {
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? part.text : null;
    case 'image':
      if (typeof part.data === 'string' && typeof part.mimeType === 'string') images.push(`data:${part.mimeType};base64,${part.data}`);
      return null;
    case 'audio':
      return `[audio: ${String(part.mimeType ?? 'unknown type')}]`;
    case 'resource': {
      const r = (part.resource ?? {}) as Record<string, unknown>;
      if (typeof r.text === 'string') return r.text;
      return `[resource ${String(r.uri ?? '')} (${String(r.mimeType ?? 'binary')})]`;
    }
    case 'resource_link':
      return `[resource link: ${String(part.name ?? '')} ${String(part.uri ?? '')}]`.replace(/\s+]/, ']');
    default:
      return `[unsupported content: ${String(part.type)}]`;
  }
}

export function convertCallResult(result: Record<string, unknown>): McpOutput {
  const images: string[] = [];
  const texts: string[] = [];
  const content = Array.isArray(result.content) ? (result.content as Part[]) : [];
  for (const part of content) {
    const t = partText(part ?? {}, images);
    if (t !== null) texts.push(t);
  }
  if (content.length === 0 && result.structuredContent !== undefined) texts.push(JSON.stringify(result.structuredContent));
  if (content.length === 0 && result.toolResult !== undefined) texts.push(JSON.stringify(result.toolResult));
  return { text: texts.join('\n'), images, isError: result.isError === true };
}

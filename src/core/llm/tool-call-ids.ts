/**
 * Session-wide tool_call_id uniqueness (engine.md §3). A provider id is kept while unused, otherwise it
 * becomes `<id>#2`, `#3`…; the suffix is stripped again before an id goes back to the provider, so
 * providers that reuse ids (or use the function name as the id) still pair correctly while the engine,
 * traces and renderers see unique ids. One allocator is shared by every model object of a Session.
 */
import type { ToolCallIdRegistry } from '../interfaces';

const SUFFIX = /#\d+$/;

/** The provider's own id for a Session-unique id (`call_1#3` → `call_1`). */
export function stripToolCallIdSuffix(id: string): string {
  return id.replace(SUFFIX, '');
}

export class ToolCallIdAllocator implements ToolCallIdRegistry {
  private readonly used = new Set<string>();
  /** Next suffix to try per base id, so repeated collisions stay O(1). */
  private readonly nextSuffix = new Map<string, number>();

  allocate(providerId: string): string {
    const base = providerId === '' ? 'call' : providerId;
    if (!this.used.has(base)) {
      this.used.add(base);
      return base;
    }
    let n = this.nextSuffix.get(base) ?? 2;
    while (this.used.has(`${base}#${n}`)) n++;
    const id = `${base}#${n}`;
    this.nextSuffix.set(base, n + 1);
    this.used.add(id);
    return id;
  }

  seed(id: string): void {
    this.used.add(id);
  }

  outbound(id: string): string {
    return stripToolCallIdSuffix(id);
  }
}

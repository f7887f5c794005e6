/**
 * Assembles the built-in tools of one Environment (engine.md §4.3, §4.7): the configured definitions
 * (defaults unless `tools.builtin` replaced them) in their order, unknown names and duplicates skipped,
 * `forModel` choosing read_image (vision) or describe_image (text-only), and `call_description: false`
 * removing the `description` parameter from the schema the model sees. The assembly (what the model is
 * offered, the argument lists, each tool's factory) is made once per definitions list and shared by every
 * Environment built from it, its warnings said once; an Environment makes a tool's implementation (bound to
 * its command and subagent managers) only when a call needs it, as most sessions never call one.
 */
import type { ToolDefinition, ToolDefinitionConfig } from '../interfaces';
import { schemaKeys } from './arguments';
import { BUILTIN_TOOL_FACTORIES } from './tools';
import type { ToolFactory } from './tools/tool-kit';

export interface AssembledTool {
  definition: ToolDefinitionConfig;
  /** Makes the implementation for one Environment. */
  factory: ToolFactory;
  /** What the model is offered. */
  modelDefinition: ToolDefinition;
  /** Required parameters of the offered schema. */
  required: string[];
  /** "name (required)" list for argument errors. */
  expected: string[];
}

export function stripDescriptionParameter(parameters: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!parameters) return parameters;
  const props = parameters.properties;
  const out: Record<string, unknown> = { ...parameters };
  if (props && typeof props === 'object') {
    const { description: _dropped, ...rest } = props as Record<string, unknown>;
    out.properties = rest;
  }
  if (Array.isArray(parameters.required)) out.required = parameters.required.filter((k) => k !== 'description');
  return out;
}

type OfferedTool = Omit<AssembledTool, 'definition' | 'factory'>;
const offered = new WeakMap<ToolDefinitionConfig, OfferedTool>();

/** The model-facing definition and argument lists of `def`, the same objects for every Environment. */
function offeredTool(def: ToolDefinitionConfig): OfferedTool {
  let o = offered.get(def);
  if (!o) {
    const parameters = def.call_description === false ? stripDescriptionParameter(def.parameters) : def.parameters;
    const { required, properties } = schemaKeys(parameters);
    const modelDefinition: ToolDefinition = { name: def.name, description: def.description };
    if (parameters) modelDefinition.parameters = parameters;
    o = { modelDefinition, required, expected: properties.map((p) => (required.includes(p) ? `${p} (required)` : p)) };
    offered.set(def, o);
  }
  return o;
}

export type AssembledTools = ReadonlyMap<string, AssembledTool>;

/** Per definitions list, the assembly with vision and without (the same list serves both kinds of model). */
const assembled = new WeakMap<readonly ToolDefinitionConfig[], { vision?: AssembledTools; textOnly?: AssembledTools }>();

export function assembleBuiltins(definitions: readonly ToolDefinitionConfig[], vision: boolean, warn: (message: string) => void): AssembledTools {
  let byKind = assembled.get(definitions);
  if (!byKind) assembled.set(definitions, (byKind = {}));
  const key = vision ? 'vision' : 'textOnly';
  return (byKind[key] ??= assemble(definitions, vision, warn));
}

function assemble(definitions: readonly ToolDefinitionConfig[], vision: boolean, warn: (message: string) => void): AssembledTools {
  const out = new Map<string, AssembledTool>();
  for (const def of definitions) {
    const factory = BUILTIN_TOOL_FACTORIES[def.name];
    if (!factory) {
      warn(`built-in tool ${JSON.stringify(def.name)} skipped: no such tool`);
      continue;
    }
    if (out.has(def.name)) {
      warn(`built-in tool ${def.name} skipped: defined twice`);
      continue;
    }
    if ((def.forModel === 'vision' && !vision) || (def.forModel === 'text-only' && vision)) continue;
    out.set(def.name, { definition: def, factory, ...offeredTool(def) });
  }
  return out;
}

/**
 * Assembles the built-in tools of one Environment (engine.md §4.3, §4.7): the configured definitions
 * (defaults unless `tools.builtin` replaced them) in their order, unknown names and duplicates skipped,
 * `forModel` choosing read_image (vision) or describe_image (text-only), and `call_description: false`
 * removing the `description` parameter from the schema the model sees. What the model is offered and the
 * argument lists are derived once per definition and shared by every Environment built from it; only the
 * tool implementations (bound to one Environment's command and subagent managers) are per Environment.
 */
import type { ToolDefinition, ToolDefinitionConfig } from '../interfaces';
import { schemaKeys } from './arguments';
import { BUILTIN_TOOL_FACTORIES, type ToolDeps, type ValidatedTool } from './tools';

export interface AssembledTool {
  tool: ValidatedTool;
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

type OfferedTool = Omit<AssembledTool, 'tool'>;
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

export function assembleBuiltins(
  definitions: readonly ToolDefinitionConfig[],
  vision: boolean,
  deps: ToolDeps,
  warn: (message: string) => void,
): Map<string, AssembledTool> {
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
    out.set(def.name, { tool: factory(def, deps), ...offeredTool(def) });
  }
  return out;
}

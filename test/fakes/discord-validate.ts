/**
 * Validation of message payloads (channel messages, edits, interaction responses, webhook follow-ups)
 * against Discord's limits: content ≤ 2,000, ≤ 10 embeds within their field and 6,000-character caps,
 * legacy components (≤ 5 action rows of ≤ 5 buttons, label ≤ 80, custom_id 1–100, unique ids) or
 * Components V2 (flag 1<<15: no content/embeds, ≤ 40 components, text ≤ 4,000), flags, allowed_mentions.
 * Failures are the real 50035 `errors` tree, or 50006 for an empty message.
 */
import { dcErrors, FormErrors } from './discord-errors';
import { validateAllowedMentions } from './discord-mentions';
import { ButtonStyle, ComponentType, MessageFlag, type DcAllowedMentions, type DcComponent, type DcEmbed } from './discord-types';

export interface MessagePayload {
  content?: string | null;
  embeds?: DcEmbed[] | null;
  components?: DcComponent[] | null;
  flags?: number;
  allowedMentions?: DcAllowedMentions | null;
  reference?: { message_id: string; channel_id?: string; guild_id?: string; fail_if_not_exists?: boolean };
  attachments?: Array<{ id: string | number; filename?: string; description?: string }>;
  nonce?: string | number;
  enforceNonce?: boolean;
  tts?: boolean;
}

export interface PayloadContext {
  mode: 'create' | 'edit';
  /** Interaction responses and follow-ups may set EPHEMERAL. */
  allowEphemeral?: boolean;
  /** Flags of the message being edited. */
  existingFlags?: number;
  fileCount: number;
}

const CREATE_FLAGS = MessageFlag.SuppressEmbeds | MessageFlag.SuppressNotifications | MessageFlag.IsComponentsV2 | MessageFlag.IsVoiceMessage;
const V2_TOP_LEVEL = new Set<number>([1, 9, 10, 12, 13, 14, 17]);
const SELECTS = new Set<number>([3, 5, 6, 7, 8]);

export function validateMessagePayload(raw: Record<string, unknown>, ctx: PayloadContext): MessagePayload {
  const errors = new FormErrors();
  const out: MessagePayload = {};
  const flags = raw.flags === undefined || raw.flags === null ? undefined : Number(raw.flags);
  if (flags !== undefined && !Number.isInteger(flags)) errors.add('flags', 'NUMBER_TYPE_COERCE', `Value "${String(raw.flags)}" is not int.`);
  const allowed = CREATE_FLAGS | (ctx.allowEphemeral ? MessageFlag.Ephemeral : 0);
  let effectiveFlags = ctx.existingFlags ?? 0;
  if (flags !== undefined) {
    const settable = ctx.mode === 'edit' ? MessageFlag.SuppressEmbeds | MessageFlag.IsComponentsV2 : allowed;
    if (ctx.mode === 'edit' && (ctx.existingFlags ?? 0) & MessageFlag.IsComponentsV2 && !(flags & MessageFlag.IsComponentsV2)) {
      errors.add('flags', 'MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG', 'The IS_COMPONENTS_V2 flag cannot be removed once set.');
    }
    effectiveFlags = ctx.mode === 'edit' ? (effectiveFlags & ~settable) | (flags & settable) : flags & settable;
    out.flags = effectiveFlags;
  }
  const v2 = (effectiveFlags & MessageFlag.IsComponentsV2) !== 0;

  if ('content' in raw && raw.content !== undefined) {
    if (raw.content !== null && typeof raw.content !== 'string') errors.add('content', 'STRING_TYPE_CONVERT', 'Could not interpret value as string.');
    else {
      out.content = raw.content;
      if (typeof raw.content === 'string' && raw.content.length > 2000) errors.maxLength('content', 2000);
      if (v2 && raw.content) errors.add('content', 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The \'content\' field cannot be used when using MessageFlags.IS_COMPONENTS_V2');
    }
  }
  if ('embeds' in raw && raw.embeds !== undefined) {
    if (raw.embeds !== null && !Array.isArray(raw.embeds)) errors.add('embeds', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else {
      out.embeds = raw.embeds as DcEmbed[] | null;
      if (Array.isArray(raw.embeds)) {
        checkEmbeds(raw.embeds as DcEmbed[], errors);
        if (v2 && raw.embeds.length) errors.add('embeds', 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2', 'The \'embeds\' field cannot be used when using MessageFlags.IS_COMPONENTS_V2');
      }
    }
  }
  if ('components' in raw && raw.components !== undefined) {
    if (raw.components !== null && !Array.isArray(raw.components)) errors.add('components', 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else {
      out.components = raw.components as DcComponent[] | null;
      if (Array.isArray(raw.components)) (v2 ? checkV2 : checkLegacy)(raw.components as DcComponent[], errors);
    }
  }
  if ('allowed_mentions' in raw && raw.allowed_mentions !== undefined) {
    validateAllowedMentions(raw.allowed_mentions, errors);
    out.allowedMentions = raw.allowed_mentions as DcAllowedMentions | null;
  }
  if (raw.message_reference !== undefined && raw.message_reference !== null) {
    const ref = raw.message_reference as MessagePayload['reference'];
    if (!ref || typeof ref !== 'object' || !ref.message_id) errors.required('message_reference.message_id');
    else out.reference = ref;
  }
  if (Array.isArray(raw.attachments)) out.attachments = raw.attachments as MessagePayload['attachments'];
  if (ctx.fileCount > 10) errors.maxLength('files', 10);
  if (raw.nonce !== undefined && raw.nonce !== null) {
    out.nonce = raw.nonce as string | number;
    if (String(raw.nonce).length > 25) errors.maxLength('nonce', 25);
    out.enforceNonce = raw.enforce_nonce === true;
  }
  if (raw.tts === true) out.tts = true;
  errors.throwIfAny();

  if (ctx.mode === 'create') {
    const hasContent = typeof out.content === 'string' && out.content.trim().length > 0;
    const hasOther = (out.embeds?.length ?? 0) > 0 || (out.components?.length ?? 0) > 0 || ctx.fileCount > 0 || raw.sticker_ids !== undefined || raw.poll !== undefined;
    if (!hasContent && !hasOther) throw dcErrors.emptyMessage();
  }
  return out;
}

function checkEmbeds(embeds: DcEmbed[], errors: FormErrors): void {
  if (embeds.length > 10) errors.maxLength('embeds', 10);
  let total = 0;
  const cap = (path: string, v: unknown, max: number): void => {
    if (typeof v !== 'string') return;
    total += v.length;
    if (v.length > max) errors.maxLength(path, max);
  };
  embeds.forEach((e, i) => {
    const p = `embeds.${i}`;
    cap(`${p}.title`, e.title, 256);
    cap(`${p}.description`, e.description, 4096);
    cap(`${p}.footer.text`, e.footer?.text, 2048);
    cap(`${p}.author.name`, e.author?.name, 256);
    if ((e.fields?.length ?? 0) > 25) errors.maxLength(`${p}.fields`, 25);
    e.fields?.forEach((f, j) => {
      cap(`${p}.fields.${j}.name`, f.name, 256);
      cap(`${p}.fields.${j}.value`, f.value, 1024);
    });
  });
  if (total > 6000) errors.add('embeds', 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
}

function checkInteractive(c: DcComponent, path: string, errors: FormErrors, ids: Set<string>): void {
  if (c.type === ComponentType.Button) {
    const style = c.style ?? 0;
    if (style < 1 || style > 6) errors.add(`${path}.style`, 'ENUM_TYPE_COERCE', `Value "${String(c.style)}" is not a valid enum value.`);
    if (typeof c.label === 'string' && c.label.length > 80) errors.maxLength(`${path}.label`, 80);
    if (style === ButtonStyle.Link) {
      if (!c.url) errors.add(`${path}.url`, 'BUTTON_COMPONENT_URL_REQUIRED', 'A url is required');
      if (c.custom_id !== undefined) errors.add(`${path}.custom_id`, 'BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED', 'A custom id cannot be specified');
    } else if (style !== ButtonStyle.Premium) {
      if (c.url !== undefined) errors.add(`${path}.url`, 'BUTTON_COMPONENT_URL_NOT_ALLOWED', 'A url cannot be specified');
      if (c.label === undefined && c.emoji === undefined) errors.add(`${path}.label`, 'BUTTON_COMPONENT_LABEL_REQUIRED', 'A label or emoji is required');
    }
  }
  const needsId = (c.type === ComponentType.Button && c.style !== ButtonStyle.Link && c.style !== ButtonStyle.Premium) || SELECTS.has(c.type);
  if (needsId) {
    const id = c.custom_id;
    if (typeof id !== 'string' || id.length < 1 || id.length > 100) errors.badLength(`${path}.custom_id`, 1, 100);
    else if (ids.has(id)) errors.add(`${path}.custom_id`, 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
    else ids.add(id);
  }
}

function checkRow(row: DcComponent, path: string, errors: FormErrors, ids: Set<string>): void {
  if (row.type !== ComponentType.ActionRow) {
    errors.add(path, 'UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1,).');
    return;
  }
  const kids = row.components ?? [];
  if (kids.length < 1 || kids.length > 5) errors.badLength(`${path}.components`, 1, 5);
  if (kids.some((k) => SELECTS.has(k.type)) && kids.length > 1) {
    errors.add(`${path}.components`, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width');
  }
  kids.forEach((k, j) => {
    const kp = `${path}.components.${j}`;
    if (k.type !== ComponentType.Button && !SELECTS.has(k.type)) errors.add(`${kp}.type`, 'COMPONENT_TYPE_INVALID', 'Invalid component type');
    else checkInteractive(k, kp, errors, ids);
  });
}

function checkLegacy(rows: DcComponent[], errors: FormErrors): void {
  if (rows.length > 5) errors.maxLength('components', 5);
  const ids = new Set<string>();
  rows.forEach((row, i) => checkRow(row, `components.${i}`, errors, ids));
}

function checkV2(components: DcComponent[], errors: FormErrors): void {
  const ids = new Set<string>();
  let count = 0;
  let text = 0;
  const walk = (c: DcComponent, path: string): void => {
    count++;
    if (c.type === ComponentType.TextDisplay && typeof c.content === 'string') text += c.content.length;
    if (c.type === ComponentType.ActionRow) {
      checkRow(c, path, errors, ids);
      count += c.components?.length ?? 0;
      return;
    }
    checkInteractive(c, path, errors, ids);
    c.components?.forEach((k, j) => walk(k, `${path}.components.${j}`));
    if (c.accessory) walk(c.accessory, `${path}.accessory`);
  };
  components.forEach((c, i) => {
    if (!V2_TOP_LEVEL.has(c.type)) errors.add(`components.${i}.type`, 'COMPONENT_TYPE_INVALID', 'Invalid component type');
    walk(c, `components.${i}`);
  });
  if (count > 40) errors.add('components', 'COMPONENT_MAX_TOTAL_COMPONENTS_EXCEEDED', 'The maximum number of components is 40');
  if (text > 4000) errors.add('components', 'COMPONENT_MAX_TEXT_LENGTH_EXCEEDED', 'The total length of text displays must be 4000 or fewer');
}

/** Every button on a message (legacy rows and V2 containers/sections). */
export function buttonsOf(components: DcComponent[]): DcComponent[] {
  const out: DcComponent[] = [];
  const walk = (c: DcComponent): void => {
    if (c.type === ComponentType.Button) out.push(c);
    c.components?.forEach(walk);
    if (c.accessory) walk(c.accessory);
  };
  components.forEach(walk);
  return out;
}

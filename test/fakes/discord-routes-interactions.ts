/**
 * Interaction REST routes of the fake Discord API. The callback (`POST /interactions/{id}/{token}/
 * callback`, no bot token, outside the global limit) must come within 3 s of the interaction (else
 * 10062) and only once (40060): types 4 reply, 5 defer (loading message), 6 deferred update and 7 update
 * (components only), 8 autocomplete, 9 modal; `with_response=true` returns the callback object. The
 * token's webhook (15 minutes, then 50027) edits/deletes @original and sends, edits and deletes follow-ups.
 */
import { DcApiError, dcErrors, FormErrors } from './discord-errors';
import type { InteractionRecord } from './discord-interactions';
import { route, type RouteContext, type RouteDef, type RouteResult } from './discord-router';
import type { StoredMessage } from './discord-store';
import { CallbackType, InteractionType, MessageFlag, MessageType, type Json } from './discord-types';
import { validateMessagePayload } from './discord-validate';
import { requireChannel, requireUnarchived, type RestWorld } from './discord-world';

export function interactionRoutes(w: RestWorld): RouteDef[] {
  const now = (): number => w.clock.now();

  const webhookRecord = (p: Record<string, string>): InteractionRecord => {
    const rec = w.interactions.withToken(p.token);
    if (p.app !== w.applicationId || !rec || !rec.ack) throw dcErrors.unknownWebhook();
    if (now() - rec.createdAt > w.interactions.tokenLifetimeMs) throw dcErrors.invalidWebhookToken();
    return rec;
  };
  const messageOf = (rec: InteractionRecord, ref: string): StoredMessage => {
    const id = ref === '@original' ? rec.originalMessageId : ref;
    if (!id || (ref !== '@original' && !rec.followupIds.includes(id) && id !== rec.originalMessageId)) throw dcErrors.unknownMessage();
    const found = w.store.findMessage(id);
    if (!found || found.message.deleted) throw dcErrors.unknownMessage();
    return found.message;
  };
  const author = (rec: InteractionRecord, ephemeral: boolean, type: number) => ({
    userId: w.store.bot.id, webhookId: w.applicationId, applicationId: w.applicationId, type,
    interaction: { id: rec.id, type: rec.type, name: rec.commandName ?? '', userId: rec.userId },
    ephemeralTo: ephemeral ? rec.userId : undefined,
  });
  const render = (m: StoredMessage): Json => w.messages.render(m, false, 'rest');

  const editMessage = (m: StoredMessage, ctx: RouteContext, rec?: InteractionRecord): StoredMessage => {
    const ch = requireChannel(w, m.channelId);
    requireUnarchived(ch);
    const payload = validateMessagePayload(ctx.body, { mode: 'edit', existingFlags: m.flags, fileCount: ctx.files.length });
    if (rec?.loading && m.id === rec.originalMessageId) {
      payload.flags = (payload.flags ?? m.flags) & ~MessageFlag.Loading;
      rec.loading = false;
    }
    return w.messages.edit(ch, m, payload, ctx.files, true);
  };

  const callback = (ctx: RouteContext): RouteResult => {
    const { params, body, query, files } = ctx;
    const rec = w.interactions.get(params.id);
    const type = Number(body.type);
    const attempt = { type, at: now(), perfAt: performance.now(), status: 0 } as InteractionRecord['callbacks'][number];
    const fail = (e: DcApiError): never => {
      attempt.status = e.status;
      attempt.code = e.code;
      rec?.callbacks.push(attempt);
      w.changed();
      throw e;
    };
    if (!rec || rec.token !== params.token) throw dcErrors.unknownInteraction();
    if (rec.ack) fail(dcErrors.alreadyAcknowledged());
    if (now() - rec.createdAt > w.interactions.ackWindowMs) fail(dcErrors.unknownInteraction());
    const component = rec.type === InteractionType.MessageComponent;
    const allowed: number[] = [CallbackType.ChannelMessageWithSource, CallbackType.DeferredChannelMessageWithSource, CallbackType.Modal];
    if (component) allowed.push(CallbackType.DeferredUpdateMessage, CallbackType.UpdateMessage);
    if (rec.type === InteractionType.Autocomplete) allowed.splice(0, allowed.length, CallbackType.AutocompleteResult);
    if (!allowed.includes(type)) fail(new FormErrors().add('type', 'INTERACTION_CALLBACK_TYPE_INVALID', 'Interaction callback type is not valid for this interaction').toError());
    const data = (body.data ?? {}) as Json;
    const ch = requireChannel(w, rec.channelId);
    let message: StoredMessage | undefined;
    try {
      if (type === CallbackType.ChannelMessageWithSource || type === CallbackType.DeferredChannelMessageWithSource) {
        const deferred = type === CallbackType.DeferredChannelMessageWithSource;
        const payload = deferred
          ? { flags: Number(data.flags ?? 0) & MessageFlag.Ephemeral }
          : validateMessagePayload(data, { mode: 'create', allowEphemeral: true, fileCount: files.length });
        const ephemeral = ((payload.flags ?? 0) & MessageFlag.Ephemeral) !== 0;
        if (deferred) payload.flags = (payload.flags ?? 0) | MessageFlag.Loading;
        message = w.messages.create(ch, payload, files, author(rec, ephemeral, component ? MessageType.Default : MessageType.ChatInputCommand));
        rec.originalMessageId = message.id;
        rec.loading = deferred;
      } else if (type === CallbackType.UpdateMessage || type === CallbackType.DeferredUpdateMessage) {
        const target = w.store.findMessage(rec.messageId!)?.message;
        if (!target || target.deleted) throw dcErrors.unknownMessage();
        rec.originalMessageId = target.id;
        if (type === CallbackType.UpdateMessage) message = editMessage(target, { ...ctx, body: data });
      } else if (type === CallbackType.Modal) {
        rec.modal = structuredClone(data);
      } else {
        rec.choices = structuredClone(data.choices ?? []);
      }
    } catch (err) {
      if (err instanceof DcApiError) fail(err);
      throw err;
    }
    rec.ack = { type, at: attempt.at, perfAt: attempt.perfAt };
    attempt.status = query.get('with_response') === 'true' ? 200 : 204;
    rec.callbacks.push(attempt);
    w.changed();
    if (attempt.status === 204) return { status: 204 };
    const orig = rec.originalMessageId ? w.store.findMessage(rec.originalMessageId)?.message : undefined;
    const interaction: Json = { id: rec.id, type: rec.type };
    if (orig && type !== CallbackType.DeferredUpdateMessage && type !== CallbackType.UpdateMessage) {
      Object.assign(interaction, { response_message_id: orig.id, response_message_loading: !!rec.loading, response_message_ephemeral: !!orig.ephemeralTo });
    }
    const resource: Json = { type };
    if (message && (type === CallbackType.ChannelMessageWithSource || type === CallbackType.UpdateMessage)) resource.message = render(message);
    return { status: 200, body: { interaction, resource } };
  };

  const webhookOpts = { auth: false, group: 'webhook' as const, major: 'webhook' as const, global: false };
  return [
    route('POST', '/interactions/:id/:token/callback', 'interactionCallback', { auth: false, group: 'interactionCallback', major: 'interaction', global: false }, callback),

    route('GET', '/webhooks/:app/:token/messages/:message', 'getWebhookMessage', webhookOpts, ({ params }) => {
      const rec = webhookRecord(params);
      return { status: 200, body: render(messageOf(rec, params.message)) };
    }),

    route('PATCH', '/webhooks/:app/:token/messages/:message', 'editWebhookMessage', webhookOpts, (ctx) => {
      const rec = webhookRecord(ctx.params);
      const m = editMessage(messageOf(rec, ctx.params.message), ctx, rec);
      return { status: 200, body: render(m) };
    }),

    route('DELETE', '/webhooks/:app/:token/messages/:message', 'deleteWebhookMessage', webhookOpts, ({ params }) => {
      const rec = webhookRecord(params);
      const m = messageOf(rec, params.message);
      const ch = requireChannel(w, m.channelId);
      requireUnarchived(ch);
      w.messages.delete(ch, m);
      return { status: 204 };
    }),

    route('POST', '/webhooks/:app/:token', 'createFollowup', webhookOpts, (ctx) => {
      const rec = webhookRecord(ctx.params);
      const orig = rec.originalMessageId ? w.store.findMessage(rec.originalMessageId)?.message : undefined;
      if (rec.loading && orig && !orig.deleted) return { status: 200, body: render(editMessage(orig, ctx, rec)) };
      const ch = requireChannel(w, rec.channelId);
      requireUnarchived(ch);
      const payload = validateMessagePayload(ctx.body, { mode: 'create', allowEphemeral: true, fileCount: ctx.files.length });
      const ephemeral = ((payload.flags ?? 0) & MessageFlag.Ephemeral) !== 0;
      const m = w.messages.create(ch, payload, ctx.files, author(rec, ephemeral, MessageType.Default));
      rec.followupIds.push(m.id);
      return { status: 200, body: render(m) };
    }),
  ];
}

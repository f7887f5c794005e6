/**
 * config/slack-manifest.yaml asks for exactly the scopes the adapter uses (scopes.ts), subscribes to the
 * events its listeners map, enables interactivity (the buttons) and the assistant view, and its HTTP-mode
 * request URLs (commented out) point at the route the adapter serves.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { SLACK_EVENTS_PATH } from '../../../src/adapters/slack/http-receiver';
import { SLACK_BOT_SCOPES } from '../../../src/adapters/slack/scopes';

const text = readFileSync(resolve(__dirname, '../../../config/slack-manifest.yaml'), 'utf8');
const manifest = parse(text);

it('requests exactly the scopes the adapter uses', () => {
  expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(Object.keys(SLACK_BOT_SCOPES).sort());
});

it('subscribes to the events the adapter maps and enables buttons, Socket Mode and the assistant view', () => {
  expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(
    ['app_mention', 'assistant_thread_context_changed', 'assistant_thread_started', 'message.channels', 'message.groups', 'message.im', 'message.mpim'],
  );
  expect(manifest.settings.interactivity.is_enabled).toBe(true);
  expect(manifest.settings.socket_mode_enabled).toBe(true);
  expect(manifest.features.assistant_view.assistant_description).toEqual(expect.any(String));
  const urls = [...text.matchAll(/# request_url: (\S+)/g)].map((m) => new URL(m[1]).pathname);
  expect(urls).toEqual([SLACK_EVENTS_PATH, SLACK_EVENTS_PATH]);
});

/** Platform formatting from one Markdown parse: Slack mrkdwn, Discord Markdown, Telegram HTML, plain text. */
export * from './formatter';
export { toSlackMrkdwn, escapeSlack } from './slack';
export { toDiscordMarkdown, escapeDiscord, neutralizeMentions } from './discord';
export { toTelegramHtml, escapeTelegramHtml, telegramLength, telegramVisibleText, telegramEntityCount } from './telegram';
export { toPlainText } from './plain';
export { displayWidth } from './text-width';
export { decodeEntities, isSafeHref } from './markdown-walk';

/**
 * Markdown as the transcript and the playground show it: parsed by marked, then sanitised by DOMPurify
 * (model output is untrusted: no scripts, handlers, styles or foreign frames survive), links opened in a
 * new tab without a referrer. `<Markdown text>` renders it.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

export function markdownHtml(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true }) as string;
  // style attributes would also break the page's CSP; forms and inputs have no place in a transcript.
  return DOMPurify.sanitize(html, { FORBID_ATTR: ['style'], FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'] });
}

export function Markdown({ text, class: cls }: { text: string; class?: string }) {
  return <div class={`md ${cls ?? ''}`} dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />;
}

/**
 * The sign-in page's HTML (auth.md 5.1): a plain form that works without JavaScript, labelled
 * fields, hidden `redirect_uri`, `state`, `test`, `lang` and the anti-forgery value, and a
 * message element carrying `data-error-code` when something went wrong. Every value shown is
 * escaped (shared/core/html.ts); the page has no script at all.
 */
import { escapeHtml } from '../../core/html';
import { textsOf, type PageLanguage } from './messages';

/** What the form carries from one visit to the next. */
export interface FormFields {
  redirectUri: string | undefined;
  state: string | undefined;
  test: boolean;
  /** Compact layout for embedding (`iframe=true` or `msg=true`). */
  compact: boolean;
  username: string;
}

/** A message shown above the form: a notice, or an error with its code. */
export type PageMessage = { kind: 'notice'; text: string } | { kind: 'error'; code: string; text: string };

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2430}
main{max-width:22rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
body.compact main{margin:0 auto;box-shadow:none}
h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{box-sizing:border-box;width:100%;padding:.5rem;border:1px solid #9aa3b0;border-radius:4px;font:inherit}
button{margin-top:1.25rem;width:100%;box-sizing:border-box;padding:.6rem;border:0;border-radius:4px;background:#1f5fbf;color:#fff;font:inherit;cursor:pointer}
button.secondary{background:#fff;color:#1d2430;border:1px solid #9aa3b0}
.error{color:#9b1c1c;background:#fdecec;padding:.5rem .75rem;border-radius:4px}.notice{background:#e8f3ea;padding:.5rem .75rem;border-radius:4px}`;

export function hidden(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

export function messageHtml(message: PageMessage | undefined): string {
  if (!message) return '';
  if (message.kind === 'notice') return `<p class="notice" role="status">${escapeHtml(message.text)}</p>`;
  return `<p class="error" role="alert" data-error-code="${escapeHtml(message.code)}">${escapeHtml(message.text)}</p>`;
}

export function documentHtml(language: PageLanguage, title: string, compact: boolean, content: string): string {
  return `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body${compact ? ' class="compact"' : ''}><main>
${content}
</main></body>
</html>
`;
}

/** The sign-in form in `language`, with `message` above it and `antiForgery` in its hidden field. */
export function formPage(language: PageLanguage, fields: FormFields, antiForgery: string, message?: PageMessage): string {
  const t = textsOf(language);
  const content = `<h1>${escapeHtml(t.heading)}</h1>
${messageHtml(message)}
<form method="post" action="./" accept-charset="utf-8">
${hidden('redirect_uri', fields.redirectUri)}${hidden('state', fields.state)}${fields.test ? hidden('test', 'true') : ''}${fields.compact ? hidden('iframe', 'true') : ''}${hidden('lang', language)}${hidden('csrf_token', antiForgery)}
<label for="username">${escapeHtml(t.loginName)}</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(fields.username)}">
<label for="password">${escapeHtml(t.password)}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">${escapeHtml(t.submit)}</button>
</form>`;
  return documentHtml(language, t.title, fields.compact, content);
}

/** The page shown after a successful login that cannot be completed (no or an unregistered `redirect_uri`). */
export function errorPage(language: PageLanguage, code: string, text: string, compact: boolean): string {
  const t = textsOf(language);
  const content = `<h1>${escapeHtml(t.errorHeading)}</h1>
<p class="error" role="alert" data-error-code="${escapeHtml(code)}">${escapeHtml(text)}</p>
<p><a href="./?lang=${language}">${escapeHtml(t.tryAgain)}</a></p>`;
  return documentHtml(language, t.errorHeading, compact, content);
}

/** The authorize page's sign-in form (auth.md 6.2): it names the app and carries the authorization request in hidden fields. */
export function authorizeFormPage(language: PageLanguage, appName: string, request: Record<string, string | undefined>, username: string, antiForgery: string, message?: PageMessage): string {
  const t = textsOf(language);
  const hiddenFields = Object.entries(request).map(([name, value]) => hidden(name, value)).join('');
  const content = `<h1>${escapeHtml(t.authorizeHeading(appName))}</h1>
<p>${escapeHtml(t.authorizeIntro(appName))}</p>
${messageHtml(message)}
<form method="post" action="authorize" accept-charset="utf-8">
${hiddenFields}${hidden('step', 'login')}${hidden('lang', language)}${hidden('csrf_token', antiForgery)}
<label for="username">${escapeHtml(t.loginName)}</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(username)}">
<label for="password">${escapeHtml(t.password)}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">${escapeHtml(t.submit)}</button>
</form>`;
  return documentHtml(language, t.authorizeHeading(appName), false, content);
}

/** The consent screen: names the app and the signed-in user; Allow or Deny post the one-time ticket back. */
export function consentPage(language: PageLanguage, appName: string, userName: string, test: boolean, ticket: string, antiForgery: string): string {
  const t = textsOf(language);
  const content = `<h1 data-consent-app="${escapeHtml(appName)}">${escapeHtml(t.consentHeading(appName))}</h1>
<p>${escapeHtml(t.consentText(appName, userName))}</p>
${test ? `<p class="notice">${escapeHtml(t.consentTest)}</p>` : ''}
<form method="post" action="authorize" accept-charset="utf-8">
${hidden('step', 'consent')}${hidden('ticket', ticket)}${hidden('lang', language)}${hidden('csrf_token', antiForgery)}
<button type="submit" name="decision" value="allow">${escapeHtml(t.allow)}</button>
<button type="submit" name="decision" value="deny" class="secondary">${escapeHtml(t.deny)}</button>
</form>`;
  return documentHtml(language, t.consentHeading(appName), false, content);
}

/** An error page of the authorize endpoint (unknown client, unregistered redirect, expired consent): no redirect, ever. */
export function authorizeErrorPage(language: PageLanguage, code: string, text: string): string {
  const t = textsOf(language);
  const content = `<h1>${escapeHtml(t.errorHeading)}</h1>
<p class="error" role="alert" data-error-code="${escapeHtml(code)}">${escapeHtml(text)}</p>`;
  return documentHtml(language, t.errorHeading, false, content);
}

/**
 * The sign-in page's words in the languages it speaks (auth.md 5.1: at least English and German),
 * chosen by the `lang` parameter, else the first supported language of `Accept-Language`.
 */

/** The languages the page speaks; the first is the default. */
export const PAGE_LANGUAGES = ['en', 'de'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** Every text of the page. Functions take what they show (already plain text; the page escapes). */
export interface PageTexts {
  title: string;
  heading: string;
  loginName: string;
  password: string;
  submit: string;
  signedOut: string;
  invalidLogin: string;
  accountLocked: (minutes: number) => string;
  tooManyAttempts: (seconds: number) => string;
  formExpired: string;
  missingFields: string;
  noRedirect: string;
  unregisteredRedirect: (uri: string) => string;
  errorHeading: string;
  tryAgain: string;
  /** The OAuth authorize page (auth.md 6.2): sign-in heading naming the app, the consent screen, its faults. */
  authorizeHeading: (app: string) => string;
  authorizeIntro: (app: string) => string;
  consentHeading: (app: string) => string;
  consentText: (app: string, user: string) => string;
  consentTest: string;
  allow: string;
  deny: string;
  unknownClient: string;
  unregisteredAppRedirect: (uri: string) => string;
  otherAccount: string;
  consentExpired: string;
}

const TEXTS: Record<PageLanguage, PageTexts> = {
  en: {
    title: 'Sign in',
    heading: 'Sign in',
    loginName: 'User ID or email',
    password: 'Password',
    submit: 'Sign in',
    signedOut: 'You have been signed out.',
    invalidLogin: 'The username or password is incorrect.',
    accountLocked: (minutes) => `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    tooManyAttempts: (seconds) => `Too many attempts from your network. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    formExpired: 'This sign-in form has expired or was sent from another site. Please sign in again.',
    missingFields: 'Enter your user ID or email and your password.',
    noRedirect: 'You signed in, but the app did not say where to return (redirect_uri is missing). No access was granted.',
    unregisteredRedirect: (uri) => `You signed in, but the return address ${uri} is not registered for your account, so no access was granted. An administrator can register it in the account settings (oauth_redirect_uris).`,
    errorHeading: 'Sign-in could not be completed',
    tryAgain: 'Back to the sign-in form',
    authorizeHeading: (app) => `Sign in to continue to ${app}`,
    authorizeIntro: (app) => `${app} asks for access to your account. Sign in first; you can then allow or deny it.`,
    consentHeading: (app) => `Allow ${app} to access your account?`,
    consentText: (app, user) => `${app} will be able to act as ${user}, with at most your own permissions and at most those the app was granted.`,
    consentTest: 'Access is to test data only.',
    allow: 'Allow',
    deny: 'Deny',
    unknownClient: 'This app is unknown or inactive, so it cannot ask for access.',
    unregisteredAppRedirect: (uri) => `The return address ${uri} is not registered for this app, so no access can be granted.`,
    otherAccount: 'This user belongs to another account and cannot authorize this app.',
    consentExpired: 'This approval form has expired or was already used. Please start again from the app.',
  },
  de: {
    title: 'Anmelden',
    heading: 'Anmelden',
    loginName: 'Benutzer-ID oder E-Mail',
    password: 'Passwort',
    submit: 'Anmelden',
    signedOut: 'Sie wurden abgemeldet.',
    invalidLogin: 'Benutzername oder Passwort ist falsch.',
    accountLocked: (minutes) => `Zu viele fehlgeschlagene Anmeldeversuche. Bitte versuchen Sie es in ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} erneut.`,
    tooManyAttempts: (seconds) => `Zu viele Versuche aus Ihrem Netzwerk. Bitte versuchen Sie es in ${seconds} ${seconds === 1 ? 'Sekunde' : 'Sekunden'} erneut.`,
    formExpired: 'Dieses Anmeldeformular ist abgelaufen oder wurde von einer anderen Website gesendet. Bitte melden Sie sich erneut an.',
    missingFields: 'Geben Sie Ihre Benutzer-ID oder E-Mail und Ihr Passwort ein.',
    noRedirect: 'Sie sind angemeldet, aber die App hat keine Rücksprungadresse angegeben (redirect_uri fehlt). Es wurde kein Zugriff gewährt.',
    unregisteredRedirect: (uri) => `Sie sind angemeldet, aber die Rücksprungadresse ${uri} ist für Ihr Konto nicht registriert, daher wurde kein Zugriff gewährt. Ein Administrator kann sie in den Kontoeinstellungen (oauth_redirect_uris) eintragen.`,
    errorHeading: 'Die Anmeldung konnte nicht abgeschlossen werden',
    tryAgain: 'Zurück zum Anmeldeformular',
    authorizeHeading: (app) => `Anmelden, um mit ${app} fortzufahren`,
    authorizeIntro: (app) => `${app} bittet um Zugriff auf Ihr Konto. Melden Sie sich zuerst an; danach können Sie den Zugriff erlauben oder ablehnen.`,
    consentHeading: (app) => `${app} Zugriff auf Ihr Konto erlauben?`,
    consentText: (app, user) => `${app} kann dann als ${user} handeln, höchstens mit Ihren eigenen Berechtigungen und höchstens mit denen, die der App gewährt wurden.`,
    consentTest: 'Der Zugriff gilt nur für Testdaten.',
    allow: 'Erlauben',
    deny: 'Ablehnen',
    unknownClient: 'Diese App ist unbekannt oder deaktiviert und kann daher keinen Zugriff anfordern.',
    unregisteredAppRedirect: (uri) => `Die Rücksprungadresse ${uri} ist für diese App nicht registriert, daher kann kein Zugriff gewährt werden.`,
    otherAccount: 'Dieser Benutzer gehört zu einem anderen Konto und kann diese App nicht autorisieren.',
    consentExpired: 'Dieses Freigabeformular ist abgelaufen oder wurde bereits verwendet. Bitte beginnen Sie erneut in der App.',
  },
};

/** The texts of `language`. */
export function textsOf(language: PageLanguage): PageTexts {
  return TEXTS[language];
}

/** Whether `value` names a language the page speaks (its primary subtag). */
function supported(value: string): PageLanguage | undefined {
  const primary = value.trim().split(/[-_]/)[0]!.toLowerCase();
  return (PAGE_LANGUAGES as readonly string[]).includes(primary) ? (primary as PageLanguage) : undefined;
}

/**
 * The page's language: `lang` when it names one the page speaks, else the supported language
 * `Accept-Language` ranks highest (q-values honoured), else English.
 *
 * @example pageLanguage(undefined, 'fr-CH, de;q=0.8, en;q=0.5') // 'de'
 */
export function pageLanguage(lang: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  const chosen = lang ? supported(lang) : undefined;
  if (chosen) return chosen;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { tag: tag!.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const language = supported(entry.tag);
    if (language) return language;
  }
  return 'en';
}

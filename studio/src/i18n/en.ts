/** Every English text of the studio, in one place so that a translation is one more file of the same keys. */
export const en = {
  'app.name': 'Studio',
  'app.loading': 'Loading…',
  'signin.title': 'Sign in to the studio',
  'signin.email': 'Email',
  'signin.password': 'Password',
  'signin.submit': 'Sign in',
  'signin.failed': 'Sign-in failed',
  'totp.title': 'Two-factor authentication',
  'totp.help': 'Enter the six-digit code from your authenticator app.',
  'totp.code': 'Authentication code',
  'totp.useRecovery': 'Use a recovery code instead',
  'totp.useCode': 'Use an authentication code instead',
  'totp.recoveryHelp': 'Enter one of your recovery codes. Each code works once.',
  'totp.recoveryCode': 'Recovery code',
  'totp.submit': 'Verify',
  'totp.back': 'Back to sign in',
  'shell.signOut': 'Sign out',
  'shell.site': 'Site',
  'shell.signedInAs': 'Signed in as {name}',
  'shell.navigation': 'Main navigation',
  'shell.toggleNav': 'Toggle navigation',
  'sites.title': 'Choose a site',
  'sites.none': 'You are not a member of any site.',
  'sites.role': 'Role: {role}',
  'nav.collections': 'Collections',
  'nav.nothing': 'There is nothing in this site you may open.',
  'home.title': 'Welcome',
  'home.body': 'Pick a collection in the navigation to see its items.',
  'collections.title': 'Collections',
  'collections.name': 'Name',
  'collections.displayName': 'Display name',
  'collections.singleton': 'Singleton',
  'collections.none': 'No collection you may read.',
  'items.title': 'Items of {collection}',
  'items.empty': 'No items.',
  'items.total': '{count} items',
  'items.page': 'Page',
  'items.table': 'Items of {collection}',
  'common.yes': 'yes',
  'common.no': 'no',
  'error.title': 'Something went wrong',
  'error.retry': 'Try again',
} as const;

export type MessageKey = keyof typeof en;

/** The text of a key with `{name}` placeholders filled in. */
export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const text: string = en[key];
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : m));
}

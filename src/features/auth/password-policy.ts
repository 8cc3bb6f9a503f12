import { WeakPassword } from './auth.errors.ts';

/**
 * The shared password rule (register, change, setup, recovery and reset): at least 12 characters,
 * at most 256, at least three of lower case, upper case, digit and symbol, and not the email's local part.
 */
export function checkPassword(password: string, email?: string, path: string[] = ['password']): void {
  const reasons: string[] = [];
  if (password.length < 12) reasons.push('at least 12 characters');
  if (password.length > 256) reasons.push('at most 256 characters');
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(password)).length;
  if (classes < 3) reasons.push('at least three of: lower case, upper case, digit, symbol');
  const local = email?.split('@')[0]?.toLowerCase();
  if (local && local.length >= 3 && password.toLowerCase().includes(local))
    reasons.push('must not contain the email name');
  if (reasons.length) throw new WeakPassword({ rules: reasons, path });
}

import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ApiError } from './api/client.ts';
import { t } from './i18n/en.ts';
import { useApi } from './session.tsx';

type Step = { kind: 'credentials' } | { kind: 'totp'; challengeToken: string; recovery: boolean };

const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : t('signin.failed'));

/** Email and password; then, for a TOTP-enrolled user, the code (or a recovery code) the challenge asks for. */
export function SignIn() {
  const api = useApi();
  const [step, setStep] = useState<Step>({ kind: 'credentials' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const onCredentials = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    void run(async () => {
      const outcome = await api.login(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
      if (outcome.kind === 'mfa') setStep({ kind: 'totp', challengeToken: outcome.challengeToken, recovery: false });
    });
  };

  const onTotp = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (step.kind !== 'totp') return;
    const value = String(new FormData(e.currentTarget).get('code') ?? '').trim();
    void run(async () => {
      await api.verifyTotp(step.challengeToken, step.recovery ? { recoveryCode: value } : { code: value });
    });
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="main">
        {step.kind === 'credentials' ? (
          <form onSubmit={onCredentials} aria-labelledby="signin-title">
            <Stack>
              <Title order={1} size="h3" id="signin-title">
                {t('signin.title')}
              </Title>
              {error && (
                <Alert color="red" role="alert" title={t('signin.failed')}>
                  {error}
                </Alert>
              )}
              <TextInput
                name="email"
                type="email"
                label={t('signin.email')}
                autoComplete="username"
                required
                autoFocus
              />
              <PasswordInput name="password" label={t('signin.password')} autoComplete="current-password" required />
              <Button type="submit" loading={busy}>
                {t('signin.submit')}
              </Button>
            </Stack>
          </form>
        ) : (
          <form onSubmit={onTotp} aria-labelledby="totp-title" key={step.recovery ? 'recovery' : 'code'}>
            <Stack>
              <Title order={1} size="h3" id="totp-title">
                {t('totp.title')}
              </Title>
              <Text size="sm">{step.recovery ? t('totp.recoveryHelp') : t('totp.help')}</Text>
              {error && (
                <Alert color="red" role="alert" title={t('signin.failed')}>
                  {error}
                </Alert>
              )}
              <TextInput
                name="code"
                label={step.recovery ? t('totp.recoveryCode') : t('totp.code')}
                autoComplete="one-time-code"
                inputMode={step.recovery ? 'text' : 'numeric'}
                required
                autoFocus
              />
              <Button type="submit" loading={busy}>
                {t('totp.submit')}
              </Button>
              <Anchor
                component="button"
                type="button"
                size="sm"
                onClick={() => setStep({ ...step, recovery: !step.recovery })}
              >
                {step.recovery ? t('totp.useCode') : t('totp.useRecovery')}
              </Anchor>
              <Anchor component="button" type="button" size="sm" onClick={() => setStep({ kind: 'credentials' })}>
                {t('totp.back')}
              </Anchor>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}

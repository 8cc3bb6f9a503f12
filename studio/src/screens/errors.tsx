import { Alert, Button, Stack, Text } from '@mantine/core';
import { ApiError } from '../api/client.ts';
import { t } from '../i18n/en.ts';

/** An API error where the failed part of the screen would be: the service's message and code, and a retry. */
export function ErrorNotice({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <Alert color="red" role="alert" title={t('error.title')}>
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{message}</Text>
        {error instanceof ApiError && (
          <Text size="xs" c="dimmed">
            {error.code}
          </Text>
        )}
        {retry && (
          <Button size="xs" variant="light" onClick={retry}>
            {t('error.retry')}
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

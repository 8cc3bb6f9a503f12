import { Center, Loader, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { Link, Navigate } from '@tanstack/react-router';
import { t } from '../i18n/en.ts';
import { useMe } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

/** The caller's memberships; with exactly one, straight into it. */
export function SitePicker() {
  const me = useMe();
  if (me.isPending)
    return (
      <Center h="100vh">
        <Loader aria-label={t('app.loading')} />
      </Center>
    );
  if (me.isError) return <ErrorNotice error={me.error} retry={() => void me.refetch()} />;
  const sites = Object.entries(me.data.sites).sort(([a], [b]) => (a < b ? -1 : 1));
  if (sites.length === 1) return <Navigate to="/s/$site" params={{ site: sites[0]![0] }} replace />;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" w={420} component="main">
        <Stack>
          <Title order={1} size="h3">
            {t('sites.title')}
          </Title>
          {sites.length === 0 && <Text>{t('sites.none')}</Text>}
          <Stack component="ul" gap="xs" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {sites.map(([site, role]) => (
              <li key={site}>
                <UnstyledButton renderRoot={(props) => <Link to="/s/$site" params={{ site }} {...props} />}>
                  <Text fw={600}>{site}</Text>
                  <Text size="xs" c="dimmed">
                    {t('sites.role', { role })}
                  </Text>
                </UnstyledButton>
              </li>
            ))}
          </Stack>
        </Stack>
      </Paper>
    </Center>
  );
}

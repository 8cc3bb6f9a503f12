import {
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  Loader,
  NavLink,
  Select,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, Outlet, useNavigate, useParams } from '@tanstack/react-router';
import { t } from '../i18n/en.ts';
import { LiveInboxProvider, useLiveInbox } from '../live-inbox.tsx';
import { areas, navigation } from '../nav.ts';
import { useApi, useMe, usePermissions } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

/** The frame of a site: header (site picker, who is signed in, sign out) and the navigation the caller may use. */
export function SiteLayout() {
  const api = useApi();
  const { site } = useParams({ from: '/s/$site' });
  const navigate = useNavigate();
  const me = useMe();
  const permissions = usePermissions(site);
  const [opened, { toggle }] = useDisclosure();
  const sites = me.data ? Object.keys(me.data.sites).sort() : [];
  const name = me.data ? [me.data.firstName, me.data.lastName].filter(Boolean).join(' ') || me.data.email || '' : '';

  return (
    <LiveInboxProvider site={site}>
      <AppShell
        header={{ height: 56 }}
        navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } }}
        padding="md"
      >
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('shell.toggleNav')} />
              <Title order={1} size="h4">
                {t('app.name')}
              </Title>
              {sites.length > 1 && (
                <Select
                  aria-label={t('shell.site')}
                  data={sites}
                  value={site}
                  allowDeselect={false}
                  size="xs"
                  w={160}
                  onChange={(next) => next && void navigate({ to: '/s/$site', params: { site: next } })}
                />
              )}
              {sites.length <= 1 && (
                <Text size="sm" c="dimmed" data-testid="current-site">
                  {t('shell.site')}: {site}
                </Text>
              )}
            </Group>
            <Group gap="sm" wrap="nowrap">
              {name && (
                <Text size="sm" data-testid="signed-in-as" visibleFrom="sm">
                  {t('shell.signedInAs', { name })}
                </Text>
              )}
              <Button variant="default" size="xs" onClick={() => void api.logout().catch(() => undefined)}>
                {t('shell.signOut')}
              </Button>
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs" component="nav" aria-label={t('shell.navigation')}>
          <InboxLink site={site} />
          {permissions.isPending && <Loader size="sm" aria-label={t('app.loading')} />}
          {permissions.isError && <ErrorNotice error={permissions.error} retry={() => void permissions.refetch()} />}
          {permissions.data &&
            (navigation(permissions.data).length === 0 ? (
              <Text size="sm" c="dimmed">
                {t('nav.nothing')}
              </Text>
            ) : (
              navigation(permissions.data).map((entry) =>
                entry.to === 'collections' ? (
                  <NavLink
                    key={entry.key}
                    label={t('nav.collections')}
                    renderRoot={(props) => <Link to="/s/$site/collections" params={{ site }} {...props} />}
                  />
                ) : (
                  <NavLink
                    key={entry.key}
                    label={entry.label}
                    pl="lg"
                    renderRoot={(props) => (
                      <Link
                        to="/s/$site/collections/$collection"
                        params={{ site, collection: entry.collection! }}
                        search={{ page: 1 }}
                        {...props}
                      />
                    )}
                  />
                ),
              )
            ))}
          {permissions.data &&
            areas(permissions.data).map((area) => (
              <NavLink
                key={area.key}
                label={t(area.label)}
                renderRoot={(props) =>
                  area.key === 'releases' ? (
                    <Link to="/s/$site/releases" params={{ site }} {...props} />
                  ) : (
                    <Link to="/s/$site/pages" params={{ site }} {...props} />
                  )
                }
              />
            ))}
        </AppShell.Navbar>
        <AppShell.Main>
          <Outlet />
        </AppShell.Main>
      </AppShell>
    </LiveInboxProvider>
  );
}

/** The inbox in the navigation, with the number of unhandled notifications (live). */
function InboxLink({ site }: { site: string }) {
  const { unhandled } = useLiveInbox();
  return (
    <NavLink
      // The count's meaning is read with the name; the badge only shows the number (visible text stays in the name).
      label={
        <>
          {t('nav.inbox')}
          {unhandled > 0 && <VisuallyHidden>, {t('nav.inboxUnhandled', { count: unhandled })}</VisuallyHidden>}
        </>
      }
      rightSection={
        unhandled > 0 ? (
          <Badge size="sm" circle={unhandled < 10} data-testid="inbox-badge" aria-hidden>
            {unhandled}
          </Badge>
        ) : null
      }
      renderRoot={(props) => <Link to="/s/$site/inbox" params={{ site }} {...props} />}
    />
  );
}

export function Home() {
  return (
    <>
      <Title order={2}>{t('home.title')}</Title>
      <Text mt="sm">{t('home.body')}</Text>
    </>
  );
}

import { Anchor, Tabs, Title } from '@mantine/core';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { t } from '../i18n/en.ts';
import { usePermissions } from '../session.tsx';
import { ItemAudit } from './item-audit.tsx';
import { ItemHistory } from './item-history.tsx';
import { ItemTimeTravel } from './item-time-travel.tsx';
import { ItemVersions } from './item-versions.tsx';

export const ITEM_TABS = ['values', 'history', 'versions', 'audit'] as const;
export type ItemTab = (typeof ITEM_TABS)[number];

/** One item, read-only, with its history: values (now or as of a moment), revisions, named versions, audit trail. */
export function ItemView() {
  const { site, collection, id } = useParams({ from: '/s/$site/items/$collection/$id' });
  const { tab } = useSearch({ from: '/s/$site/items/$collection/$id' });
  const navigate = useNavigate({ from: '/s/$site/items/$collection/$id' });
  const permissions = usePermissions(site);
  // The audit log is for site administrators (the API refuses anyone else).
  const admin = permissions.data?.admin === true;
  const props = { site, collection, id };
  return (
    <>
      <Anchor
        size="sm"
        renderRoot={(p) => (
          <Link to="/s/$site/collections/$collection" params={{ site, collection }} search={{ page: 1 }} {...p} />
        )}
      >
        {t('item.back', { collection })}
      </Anchor>
      <Title order={2} my="md">
        {t('item.title', { collection, id })}
      </Title>
      <Tabs
        value={tab}
        keepMounted={false}
        onChange={(next) => next && void navigate({ search: { tab: next as ItemTab } })}
      >
        <Tabs.List aria-label={t('item.tabs')} mb="md">
          <Tabs.Tab value="values">{t('item.tab.values')}</Tabs.Tab>
          <Tabs.Tab value="history">{t('item.tab.history')}</Tabs.Tab>
          <Tabs.Tab value="versions">{t('item.tab.versions')}</Tabs.Tab>
          {admin && <Tabs.Tab value="audit">{t('item.tab.audit')}</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="values">
          <ItemTimeTravel {...props} />
        </Tabs.Panel>
        <Tabs.Panel value="history">
          <ItemHistory {...props} />
        </Tabs.Panel>
        <Tabs.Panel value="versions">
          <ItemVersions {...props} />
        </Tabs.Panel>
        <Tabs.Panel value="audit">
          <ItemAudit {...props} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}

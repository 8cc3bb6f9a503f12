import { Anchor, Group } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { ItemRef } from '../history.ts';
import { t } from '../i18n/en.ts';

/** Links into an item's history screens (for the item editor): its revisions, versions and values as of a moment. */
export function ItemHistoryLinks({ site, collection, id }: ItemRef) {
  const to = (tab: 'values' | 'history' | 'versions') => (props: object) => (
    <Link to="/s/$site/items/$collection/$id" params={{ site, collection, id }} search={{ tab }} {...props} />
  );
  return (
    <Group gap="md">
      <Anchor size="sm" renderRoot={to('history')}>
        {t('item.tab.history')}
      </Anchor>
      <Anchor size="sm" renderRoot={to('versions')}>
        {t('item.tab.versions')}
      </Anchor>
      <Anchor size="sm" renderRoot={to('values')}>
        {t('asOf.label')}
      </Anchor>
    </Group>
  );
}

/** A link to a collection's list as of a moment (for the items table). */
export function AsOfListLink({ site, collection }: Omit<ItemRef, 'id'>) {
  return (
    <Anchor
      size="sm"
      renderRoot={(props) => (
        <Link
          to="/s/$site/collections/$collection/as-of"
          params={{ site, collection }}
          search={{ at: '', page: 1 }}
          {...props}
        />
      )}
    >
      {t('asOf.listLink')}
    </Anchor>
  );
}

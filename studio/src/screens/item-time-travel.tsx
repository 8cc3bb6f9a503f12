import { Button, Group, Loader, Text, TextInput } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { asOfParam, itemPath, type ItemRef, type Values } from '../history.ts';
import { t } from '../i18n/en.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';
import { ValuesTable } from './values-table.tsx';

/** A `datetime-local` control for "as of": the local time typed, the API's ISO time when it is one. */
export function AsOfInput({
  value,
  onChange,
  onNow,
}: {
  value: string;
  onChange: (local: string) => void;
  onNow: () => void;
}) {
  const invalid = value !== '' && asOfParam(value) === null;
  return (
    <Group align="flex-end" mb="md">
      <TextInput
        type="datetime-local"
        step={1}
        label={t('asOf.label')}
        description={t('asOf.help')}
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={invalid ? t('asOf.invalid') : undefined}
      />
      <Button variant="default" onClick={onNow} disabled={value === ''}>
        {t('asOf.now')}
      </Button>
    </Group>
  );
}

/** The item's values now, or as they were at a chosen moment (`asOf`). */
export function ItemTimeTravel(ref: ItemRef) {
  const api = useApi();
  const [local, setLocal] = useState('');
  const asOf = asOfParam(local);
  const item = useQuery({
    queryKey: ['item', ref.site, ref.collection, ref.id, { asOf }],
    queryFn: async () =>
      (await api.get<Values>(itemPath(ref), { site: ref.site, query: { asOf: asOf ?? undefined } })).data,
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <AsOfInput value={local} onChange={setLocal} onNow={() => setLocal('')} />
      {item.isError && <ErrorNotice error={item.error} retry={() => void item.refetch()} />}
      {item.isPending && <Loader aria-label={t('app.loading')} />}
      {item.data && !item.isError && (
        <>
          {item.isPlaceholderData ? (
            <Loader size="xs" mb="xs" aria-label={t('app.loading')} />
          ) : (
            <Text size="sm" c="dimmed" mb="xs" role="status">
              {asOf ? t('asOf.showing', { time: new Date(asOf).toLocaleString() }) : t('asOf.current')}
            </Text>
          )}
          <ValuesTable values={item.data} label={t('item.tab.values')} />
        </>
      )}
    </>
  );
}

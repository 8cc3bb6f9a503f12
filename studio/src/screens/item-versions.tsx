import {
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client.ts';
import { compareRows, draftChanges, itemPath, parseDraft, showField, type ItemRef, type Values } from '../history.ts';
import { t } from '../i18n/en.ts';
import { useApi } from '../session.tsx';
import { ErrorNotice } from './errors.tsx';

interface Version {
  key: string;
  name: string;
  data: Values;
  mainChanged: boolean;
  created_at: string;
  created_by: string;
  updated_at: string;
}

interface Compare {
  main?: Values;
  version?: Values;
  changes: Values;
}

/** The message of an API error at a field path (its last segments), if the error names that path. */
function errorAt(error: unknown, ...path: (string | number)[]): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const hit = error.errors.find((e) => e.path && path.every((p, i) => e.path!.at(i - path.length) === p));
  return hit?.message;
}

/** Named versions of an item: list, create, edit a draft's values, compare with main, promote. */
export function ItemVersions(ref: ItemRef) {
  const api = useApi();
  const queries = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [promoted, setPromoted] = useState<{ key: string; diverged: boolean } | null>(null);
  const listKey = ['versions', ref.site, ref.collection, ref.id];
  const list = useQuery({
    queryKey: listKey,
    queryFn: async () => (await api.get<Version[]>(itemPath(ref, '/versions'), { site: ref.site })).data,
  });
  const create = useMutation({
    mutationFn: (body: { key: string; name: string }) =>
      api.request<Version>('POST', itemPath(ref, '/versions'), { site: ref.site, body }),
    onSuccess: async (res) => {
      setKey('');
      setName('');
      setSelected(res.data.key);
      await queries.invalidateQueries({ queryKey: listKey });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setPromoted(null);
    create.mutate({ key: key.trim(), name: name.trim() });
  };
  const fieldError = (f: string) => errorAt(create.error, f);
  const otherError =
    create.isError && !fieldError('key') && !fieldError('name') ? <ErrorNotice error={create.error} /> : null;

  if (list.isError) return <ErrorNotice error={list.error} retry={() => void list.refetch()} />;
  if (list.isPending) return <Loader aria-label={t('app.loading')} />;
  const current = list.data.find((v) => v.key === selected) ?? null;

  return (
    <Stack>
      {list.data.length === 0 ? (
        <Text>{t('versions.none')}</Text>
      ) : (
        <Table striped aria-label={t('versions.list')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t('versions.key')}</Table.Th>
              <Table.Th scope="col">{t('versions.name')}</Table.Th>
              <Table.Th scope="col">{t('versions.state')}</Table.Th>
              <Table.Th scope="col">{t('versions.updated')}</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>{t('versions.open')}</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.map((v) => (
              <Table.Tr key={v.key} aria-selected={v.key === selected}>
                <Table.Td>{v.key}</Table.Td>
                <Table.Td>{v.name}</Table.Td>
                <Table.Td>
                  {v.mainChanged ? (
                    <Badge color="orange">{t('versions.mainChanged')}</Badge>
                  ) : (
                    <Badge color="gray" variant="light">
                      {t('versions.mainSame')}
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>{new Date(v.updated_at).toLocaleString()}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant={v.key === selected ? 'filled' : 'light'}
                    onClick={() => setSelected(v.key)}
                    aria-label={`${t('versions.open')} ${v.key}`}
                  >
                    {t('versions.open')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}

      <form onSubmit={submit} aria-label={t('versions.create')}>
        <Title order={3} size="h5" mb="xs">
          {t('versions.create')}
        </Title>
        <Group align="flex-start">
          <TextInput
            label={t('versions.key')}
            description={t('versions.keyHelp')}
            required
            value={key}
            onChange={(e) => setKey(e.currentTarget.value)}
            error={fieldError('key')}
          />
          <TextInput
            label={t('versions.name')}
            required
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldError('name')}
          />
          <Button type="submit" mt={24} loading={create.isPending}>
            {t('versions.createSubmit')}
          </Button>
        </Group>
        {otherError}
      </form>

      {promoted && (
        <Alert
          color={promoted.diverged ? 'orange' : 'green'}
          role={promoted.diverged ? 'alert' : 'status'}
          withCloseButton
          onClose={() => setPromoted(null)}
        >
          {t('versions.promoted', { key: promoted.key })} {promoted.diverged ? t('versions.diverged') : ''}
        </Alert>
      )}
      {current && (
        <VersionPanel
          key={current.key}
          itemRef={ref}
          version={current}
          onPromoted={(diverged) => setPromoted({ key: current.key, diverged })}
        />
      )}
    </Stack>
  );
}

/** One version: its draft as JSON (saved as the keys that changed), main beside it, and promote. */
function VersionPanel({
  itemRef: ref,
  version,
  onPromoted,
}: {
  itemRef: ItemRef;
  version: Version;
  onPromoted: (diverged: boolean) => void;
}) {
  const api = useApi();
  const queries = useQueryClient();
  const { id: _id, ...draft } = version.data;
  const [text, setText] = useState(() => JSON.stringify(draft, null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const path = itemPath(ref, `/versions/${encodeURIComponent(version.key)}`);
  const refresh = async () => {
    await queries.invalidateQueries({ queryKey: ['versions', ref.site, ref.collection, ref.id] });
    await queries.invalidateQueries({ queryKey: ['compare', ref.site, ref.collection, ref.id, version.key] });
  };
  const compare = useQuery({
    queryKey: ['compare', ref.site, ref.collection, ref.id, version.key],
    queryFn: () => api.get<Compare, { mainChanged: boolean }>(`${path}/compare`, { site: ref.site }),
  });
  const save = useMutation({
    mutationFn: (data: Values) => api.request<Version>('PATCH', path, { site: ref.site, body: { data } }),
    onSuccess: async (res) => {
      const { id: _saved, ...values } = res.data.data;
      setText(JSON.stringify(values, null, 2));
      setSaved(t('versions.saved'));
      await refresh();
    },
  });
  const promote = useMutation({
    mutationFn: () => api.request<Values, { mainDiverged: boolean }>('POST', `${path}/promote`, { site: ref.site }),
    onSuccess: async (res) => {
      setConfirming(false);
      onPromoted(res.meta?.mainDiverged === true);
      await refresh();
      await queries.invalidateQueries({ queryKey: ['item', ref.site, ref.collection, ref.id] });
      await queries.invalidateQueries({ queryKey: ['revisions', ref.site, ref.collection, ref.id] });
    },
  });
  const onSave = () => {
    setSaved(null);
    const parsed = parseDraft(text);
    if (!parsed.ok) return setParseError(parsed.error);
    setParseError(null);
    const changes = draftChanges(version.data, { ...parsed.values, id: version.data.id });
    if (Object.keys(changes).length === 0) return setSaved(t('versions.nothingChanged'));
    save.mutate(changes);
  };
  // A field error of the save names the field under `data`.
  const saveError =
    save.error instanceof ApiError
      ? save.error.errors
          .map((e) => (e.path?.length ? `${e.path.slice(1).join('.')}: ${e.message}` : e.message))
          .join('; ')
      : save.error
        ? String(save.error)
        : null;

  return (
    <Stack component="section" aria-label={t('versions.selected', { name: version.name, key: version.key })}>
      <Title order={3}>{t('versions.selected', { name: version.name, key: version.key })}</Title>
      {version.mainChanged && (
        <Alert color="orange" role="alert">
          {t('versions.mainChangedWarning')}
        </Alert>
      )}
      <Textarea
        label={t('versions.draft')}
        autosize
        minRows={4}
        maxRows={16}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        error={parseError ?? saveError ?? undefined}
        styles={{ input: { fontFamily: 'monospace' } }}
      />
      <Group>
        <Button onClick={onSave} loading={save.isPending}>
          {t('versions.save')}
        </Button>
        <Button color="orange" variant="light" onClick={() => setConfirming(true)}>
          {t('versions.promote')}
        </Button>
        {saved && (
          <Text size="sm" role="status">
            {saved}
          </Text>
        )}
      </Group>

      <Title order={4}>{t('versions.compare', { key: version.key })}</Title>
      {compare.isError && <ErrorNotice error={compare.error} retry={() => void compare.refetch()} />}
      {compare.isPending && <Loader aria-label={t('app.loading')} />}
      {compare.data && (
        <Table.ScrollContainer minWidth={500}>
          <Table withTableBorder aria-label={t('versions.compare', { key: version.key })}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('item.field')}</Table.Th>
                <Table.Th scope="col">{t('versions.main')}</Table.Th>
                <Table.Th scope="col">{t('versions.version')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {compareRows(compare.data.data.main ?? {}, compare.data.data.version ?? {}).map((row) => (
                <Table.Tr key={row.field} data-differs={row.differs} bg={row.differs ? 'yellow.1' : undefined}>
                  <Table.Th scope="row">
                    {row.field}{' '}
                    {row.differs && (
                      <Badge size="xs" color="yellow" variant="filled">
                        {t('versions.differs')}
                      </Badge>
                    )}
                  </Table.Th>
                  <Table.Td>{showField(row.main)}</Table.Td>
                  <Table.Td>{showField(row.version)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      {/* No scroll lock: its run-time <style> (react-remove-scroll) carries no nonce, and the CSP refuses it. */}
      <Modal
        opened={confirming}
        onClose={() => {
          setConfirming(false);
          promote.reset();
        }}
        title={t('versions.promoteTitle', { key: version.key })}
      >
        <Stack>
          <Text size="sm">{t('versions.promoteBody')}</Text>
          {version.mainChanged && (
            <Alert color="orange" role="alert">
              {t('versions.mainChangedWarning')}
            </Alert>
          )}
          {promote.isError && <ErrorNotice error={promote.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t('common.cancel')}
            </Button>
            <Button color="orange" loading={promote.isPending} onClick={() => promote.mutate()}>
              {t('versions.promote')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

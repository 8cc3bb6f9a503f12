import { Button, Group, Input, Loader, Paper, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type ChangeEvent } from 'react';
import { ApiError } from '../api/client.ts';
import { altOf, fileSummary, formatBytes, previewSize, previewTransform, type FileRecord } from '../files.ts';
import { t } from '../i18n/en.ts';
import { can, RESOURCES } from '../nav.ts';
import { useApi, usePermissions } from '../session.tsx';

const filePath = (id: string) => `/files/${encodeURIComponent(id)}`;

/** The upload policy in effect on the site (`GET /uploads/config`), the parts the control shows. */
interface UploadConfig {
  maxBytes: number;
}

/**
 * A file field: the current file (name, type, size, and a transformed preview of an image), an upload that sets the
 * field to the new file's id (the item's save sends it), and a way to clear it when the field is not required.
 */
export function FileField({
  site,
  label,
  value,
  required,
  error,
  disabled,
  description,
  onChange,
}: {
  site: string;
  label: string;
  value: string;
  required: boolean;
  error: string | undefined;
  disabled: boolean;
  description: string | undefined;
  onChange: (id: string) => void;
}) {
  const api = useApi();
  const queries = useQueryClient();
  const inputId = useId();
  const [uploading, setUploading] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<unknown>(null);
  const permissions = usePermissions(site);
  const mayUpload = !disabled && permissions.data !== undefined && can(permissions.data, RESOURCES.media, 'create');
  const policy = useQuery({
    queryKey: ['upload-config', site],
    enabled: mayUpload,
    queryFn: async () => (await api.get<UploadConfig>('/uploads/config', { site })).data,
  });
  const file = useQuery({
    queryKey: ['file', site, value],
    enabled: value !== '',
    queryFn: async () => (await api.get<FileRecord>(filePath(value), { site })).data,
  });

  const upload = async (e: ChangeEvent<HTMLInputElement>) => {
    const input = e.currentTarget;
    const chosen = input.files?.[0];
    if (!chosen) return;
    setUploading(chosen.name);
    setRefusal(null);
    const form = new FormData();
    form.append('file', chosen, chosen.name);
    try {
      const created = (await api.upload<FileRecord>('/files', form, { site })).data;
      queries.setQueryData(['file', site, created.id], created);
      onChange(created.id);
    } catch (err) {
      setRefusal(err);
    } finally {
      setUploading(null);
      input.value = '';
    }
  };

  const limit = mayUpload ? formatBytes(policy.data?.maxBytes) : null;
  const hint = [description, limit ? t('file.limit', { size: limit }) : undefined].filter(Boolean).join(' ');
  const problem = refusal !== null ? refusalText(refusal) : error;
  const describedBy = [hint ? `${inputId}-description` : '', problem ? `${inputId}-error` : ''].join(' ').trim();
  return (
    <Input.Wrapper
      id={inputId}
      label={label}
      withAsterisk={required}
      description={hint || undefined}
      error={problem ? <span role={refusal !== null ? 'alert' : undefined}>{problem}</span> : undefined}
    >
      <Stack gap="xs" mt={4} mb={4}>
        {value === '' ? (
          <Text size="sm" c="dimmed">
            {t('file.none')}
          </Text>
        ) : file.isError ? (
          <Text size="sm" c="red">
            {t('file.unreadable', { id: value, message: file.error.message })}
          </Text>
        ) : file.data ? (
          <CurrentFile site={site} file={file.data} />
        ) : (
          <Loader size="sm" aria-label={t('app.loading')} />
        )}
        <Group gap="sm">
          {mayUpload && (
            <input
              id={inputId}
              type="file"
              disabled={uploading !== null}
              aria-invalid={problem ? true : undefined}
              aria-describedby={describedBy || undefined}
              onChange={(e) => void upload(e)}
            />
          )}
          {uploading !== null && (
            <Group gap={6} role="status">
              <Loader size="xs" aria-hidden />
              <Text size="sm">{t('file.uploading', { name: uploading })}</Text>
            </Group>
          )}
          {!required && value !== '' && !disabled && (
            <Button
              size="xs"
              variant="default"
              disabled={uploading !== null}
              onClick={() => {
                setRefusal(null);
                onChange('');
              }}
            >
              {t('file.remove')}
            </Button>
          )}
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}

/** The API's refusal of an upload (413 too large, 415 a refused type, …) as the control shows it. */
function refusalText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return err instanceof ApiError ? t('file.refused', { message, code: err.code }) : t('file.failed', { message });
}

function CurrentFile({ site, file }: { site: string; file: FileRecord }) {
  return (
    <Group gap="sm" align="flex-start" wrap="nowrap">
      <Preview site={site} file={file} />
      <Stack gap={2}>
        <Text size="sm" data-testid="file-summary">
          {fileSummary(file)}
        </Text>
        {file.title && (
          <Text size="xs" c="dimmed">
            {file.title}
          </Text>
        )}
      </Stack>
    </Group>
  );
}

/**
 * An image's preview: the asset transformed to the preview's size, fetched with the session's token (the asset
 * address needs it, so a plain `src` would not load) and shown from a blob: address, which the studio's CSP allows.
 */
function Preview({ site, file }: { site: string; file: FileRecord }) {
  const api = useApi();
  const transform = previewTransform(file);
  const asset = useQuery({
    queryKey: ['file-preview', site, file.id, transform],
    enabled: transform !== null,
    // A file's bytes never change: its derivative for these parameters neither.
    staleTime: Infinity,
    queryFn: () => api.blob(`/assets/${encodeURIComponent(file.id)}`, { site, query: { ...transform } }),
  });
  const url = useObjectUrl(asset.data);
  if (!transform) return null;
  if (asset.isError)
    return (
      <Text size="xs" c="red">
        {t('file.previewFailed', { message: asset.error.message })}
      </Text>
    );
  const size = previewSize(file, transform);
  return (
    <Paper withBorder p={2} miw={size.width + 6} mih={size.height + 6}>
      {url ? (
        <img src={url} alt={altOf(file)} width={size.width} height={size.height} data-testid="file-preview" />
      ) : (
        <Loader size="sm" aria-label={t('file.previewLoading')} />
      )}
    </Paper>
  );
}

/** A blob's object URL while the component shows it; revoked when the blob changes or the component goes. */
function useObjectUrl(blob: Blob | undefined): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) {
      setUrl(null);
      return;
    }
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}

import { Table } from '@mantine/core';
import { showField, type Values } from '../history.ts';
import { t } from '../i18n/en.ts';

/** An item's values as a two-column table (field, value). */
export function ValuesTable({ values, label }: { values: Values; label: string }) {
  return (
    <Table.ScrollContainer minWidth={400}>
      <Table striped aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('item.field')}</Table.Th>
            <Table.Th scope="col">{t('item.value')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {Object.entries(values).map(([field, value]) => (
            <Table.Tr key={field}>
              <Table.Th scope="row">{field}</Table.Th>
              <Table.Td>{showField(value)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

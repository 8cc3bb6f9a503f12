import Fastify from 'fastify';
import pg from 'pg';

/**
 * The floor: the least a server can do for scenario c on this machine. Fastify and one pg pool of 10 read the same
 * row by primary key from the same table (as the table's owner, no row-level security, no authentication, no
 * schema, no envelope beyond `{ data }`). Ours divided by this is what the service's own work costs.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });
app.get<{ Params: { collection: string; id: string } }>('/api/v1/items/:collection/:id', async (req, reply) => {
  const site = String(req.headers['x-svc-site'] ?? '');
  const r = await pool.query<{ id: string; data: Record<string, unknown> }>(
    'select id, data from item_documents where site_id = $1 and collection = $2 and id = $3',
    [site, req.params.collection, req.params.id],
  );
  const row = r.rows[0];
  if (!row) return reply.code(404).send({ errors: [{ code: 'NOT_FOUND' }] });
  return { data: { ...row.data, id: row.id } };
});
app.get('/health', async () => ({ ok: true }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });

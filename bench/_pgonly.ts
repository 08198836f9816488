import pg from 'pg';
import { speedSection } from './sections/speed.js';
async function fresh(name: string) {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}
const r = await speedSection(
  'postgres',
  await fresh('parley_bench_speed'),
  await fresh('parley_bench_speed_count'),
  process.argv.includes('--quick'),
);
for (const row of r.rows) console.log(row.measure, '|', row.value, '|', row.reference, '|', row.ratio);
process.exit(0);

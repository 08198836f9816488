import { useState } from 'preact/hooks';
import { get, query } from '../api';
import { Chart } from '../chart';
import type { Profile } from '../types';
import { LoadStatus, Page, Table, useLoad } from '../ui';
import { UserText } from '../user-text';

interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
}
interface Funnel {
  leads: number;
  contacted: number;
  delivered: number;
  replied: number;
  hot: number;
  qualified: number;
  booked: number;
  optedOut: number;
  failed: number;
  speedToLead: { firstSend: Percentiles; firstDelivery: Percentiles };
}
interface Summary {
  /** name: groupBy=campaign only, the campaign's name (null for no campaign, or a campaign since removed). */
  groups: (Funnel & { key: string | null; name?: string | null })[];
  total: Funnel;
}
interface Deliverability {
  numbers: {
    sendingNumberId: string | null;
    number: string | null;
    sent: number;
    delivered: number;
    deliveredPercent: number | null;
    failed: number;
    failuresByCode: { code: string | null; class: string | null; count: number }[];
  }[];
}
interface Rate {
  rate: number | null;
  low: number | null;
  high: number | null;
}
interface Openings {
  variants: {
    variant: string;
    weight: number | null;
    sent: number;
    replied: number;
    qualified: number;
    booked: number;
    optedOut: number;
    rates: Record<'replied' | 'qualified' | 'booked' | 'optedOut', Rate>;
  }[];
  significant: boolean;
  leader: string | null;
}

const STAGES = [
  ['leads', 'Leads'],
  ['contacted', 'Contacted'],
  ['delivered', 'Delivered'],
  ['replied', 'Replied'],
  ['hot', 'Hot'],
  ['qualified', 'Qualified'],
  ['booked', 'Booked'],
  ['optedOut', 'Opted out'],
  ['failed', 'Failed sends'],
] as const;

const day = (d: Date) => d.toISOString().slice(0, 10);
const seconds = (ms: number | null) =>
  ms === null
    ? '—'
    : ms < 1000
      ? `${ms} ms`
      : ms < 120_000
        ? `${(ms / 1000).toFixed(1)} s`
        : `${(ms / 60_000).toFixed(1)} min`;
const pct = (r: Rate) =>
  r.rate === null
    ? '—'
    : `${(r.rate * 100).toFixed(1)} % (${((r.low ?? 0) * 100).toFixed(1)}–${((r.high ?? 0) * 100).toFixed(1)})`;

function initialRange(): { from: string; to: string } {
  const params = new URLSearchParams(location.search);
  const to = params.get('to') ?? day(new Date());
  const from = params.get('from') ?? day(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000));
  return { from, to };
}

function SpeedToLead({ total }: { total: Funnel }) {
  const rows = [
    ['First send accepted', total.speedToLead.firstSend],
    ['First delivery', total.speedToLead.firstDelivery],
  ] as const;
  return (
    <section class="card" aria-labelledby="speed-title">
      <h2 id="speed-title">Speed to lead</h2>
      <div class="chart-pair">
        <Chart
          title="Lead created to first contact (seconds), p50 / p90 / p95"
          x={[0, 1, 2]}
          bars
          series={rows.map(([label, p]) => ({
            label,
            values: [p.p50, p.p90, p.p95].map((v) => (v === null ? null : v / 1000)),
          }))}
        />
        <Table
          caption="Speed to lead, from the lead's creation"
          showCaption
          columns={['', 'Leads', 'p50', 'p90', 'p95']}
        >
          {rows.map(([label, p]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td>{p.count}</td>
              <td>{seconds(p.p50)}</td>
              <td>{seconds(p.p90)}</td>
              <td>{seconds(p.p95)}</td>
            </tr>
          ))}
        </Table>
      </div>
    </section>
  );
}

function FunnelCard({ total }: { total: Funnel }) {
  return (
    <section class="card" aria-labelledby="funnel-title">
      <h2 id="funnel-title">Funnel</h2>
      <div class="chart-pair">
        <Chart
          title="Leads at each stage"
          x={STAGES.map((_, i) => i)}
          bars
          series={[{ label: 'Leads', values: STAGES.map(([k]) => total[k]) }]}
        />
        <Table caption="The funnel over the range" showCaption columns={['Stage', 'Count']}>
          {STAGES.map(([k, label]) => (
            <tr key={k}>
              <th scope="row">{label}</th>
              <td>{total[k]}</td>
            </tr>
          ))}
        </Table>
      </div>
    </section>
  );
}

function OverTime({ summary }: { summary: Summary }) {
  const days = summary.groups.filter((g) => g.key);
  return (
    <section class="card" aria-labelledby="time-title">
      <h2 id="time-title">Replies and opt-outs over time</h2>
      <div class="chart-pair">
        <Chart
          title="Per day (UTC)"
          timeAxis
          x={days.map((g) => Date.parse(`${g.key}T00:00:00Z`) / 1000)}
          series={[
            { label: 'Leads', values: days.map((g) => g.leads) },
            { label: 'Replied', values: days.map((g) => g.replied) },
            { label: 'Opted out', values: days.map((g) => g.optedOut) },
          ]}
        />
        <Table caption="Per day (UTC)" showCaption columns={['Day', 'Leads', 'Contacted', 'Replied', 'Opted out']}>
          {days.map((g) => (
            <tr key={g.key}>
              <th scope="row">{g.key}</th>
              <td>{g.leads}</td>
              <td>{g.contacted}</td>
              <td>{g.replied}</td>
              <td>{g.optedOut}</td>
            </tr>
          ))}
        </Table>
      </div>
    </section>
  );
}

function DeliverabilityCard({ from, to }: { from: string; to: string }) {
  const load = useLoad(() => get<Deliverability>(`/v1/analytics/deliverability${query({ from, to })}`), [from, to]);
  const numbers = load.data?.numbers ?? [];
  return (
    <section class="card" aria-labelledby="deliverability-title">
      <h2 id="deliverability-title">Deliverability by number</h2>
      <LoadStatus load={load} what="deliverability" />
      {load.data && (
        <div class="chart-pair wide">
          <Chart
            title="Delivered, per number (%)"
            x={numbers.map((_, i) => i)}
            bars
            series={[{ label: 'Delivered %', values: numbers.map((n) => n.deliveredPercent) }]}
          />
          <Table
            caption="Sends per number"
            showCaption
            columns={['Number', 'Sent', 'Delivered', 'Delivered %', 'Failed', 'Failures by code']}
          >
            {numbers.map((n) => (
              <tr key={n.sendingNumberId ?? 'own'}>
                <th scope="row">{n.number ?? (n.sendingNumberId ? n.sendingNumberId : 'Own number')}</th>
                <td>{n.sent}</td>
                <td>{n.delivered}</td>
                <td>{n.deliveredPercent === null ? '—' : `${n.deliveredPercent} %`}</td>
                <td>{n.failed}</td>
                <td>{n.failuresByCode.map((f) => `${f.code ?? 'no code'}: ${f.count}`).join(', ') || '—'}</td>
              </tr>
            ))}
          </Table>
        </div>
      )}
    </section>
  );
}

function CampaignsCard({ from, to }: { from: string; to: string }) {
  const load = useLoad(
    () => get<Summary>(`/v1/analytics/summary${query({ from, to, groupBy: 'campaign' })}`),
    [from, to],
  );
  return (
    <section class="card" aria-labelledby="campaigns-title">
      <h2 id="campaigns-title">Campaigns</h2>
      <LoadStatus load={load} what="campaigns" />
      {load.data && (
        <Table
          caption="Each campaign's report (no campaign: leads created and contacted outside campaigns)"
          showCaption
          columns={[
            'Campaign',
            'Contacted',
            'Delivered',
            'Replied',
            'Qualified',
            'Booked',
            'Opted out',
            'Failed',
            'First send p50',
          ]}
        >
          {load.data.groups.map((g) => (
            <tr key={g.key ?? 'none'}>
              {/* The campaign's name as the operator gave it; its id only when the name is gone. */}
              <th scope="row">{g.key ? <UserText text={g.name ?? g.key} /> : 'No campaign'}</th>
              <td>{g.contacted}</td>
              <td>{g.delivered}</td>
              <td>{g.replied}</td>
              <td>{g.qualified}</td>
              <td>{g.booked}</td>
              <td>{g.optedOut}</td>
              <td>{g.failed}</td>
              <td>{seconds(g.speedToLead.firstSend.p50)}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

function OpeningsCard() {
  const profiles = useLoad(() => get<{ profiles: Profile[] }>('/v1/customerProfiles'), []);
  const [profile, setProfile] = useState('');
  const withVariants = (profiles.data?.profiles ?? []).filter((p) => (p.openingVariants ?? []).length > 0);
  const chosen = profile || withVariants[0]?.name || '';
  const load = useLoad(
    () => (chosen ? get<Openings>(`/v1/analytics/openings${query({ profile: chosen })}`) : Promise.resolve(undefined)),
    [chosen],
  );
  return (
    <section class="card" aria-labelledby="openings-title">
      <h2 id="openings-title">Openings A/B</h2>
      {withVariants.length === 0 ? (
        <p class="muted">No profile has opening variants yet: add them to a profile to compare openings.</p>
      ) : (
        <>
          <label for="openings-profile">Profile</label>
          <select id="openings-profile" value={chosen} onChange={(e) => setProfile(e.currentTarget.value)}>
            {withVariants.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
          <LoadStatus load={load} what="openings" />
          {load.data && (
            <>
              <p role="status">
                {load.data.significant
                  ? `“${load.data.leader}” replies best, and the difference is significant (95 % intervals apart).`
                  : 'The difference between variants is not yet significant: keep the test running.'}
              </p>
              <div class="chart-pair wide">
                <Chart
                  title="Reply rate per variant (%)"
                  x={load.data.variants.map((_, i) => i)}
                  bars
                  series={[
                    {
                      label: 'Replied %',
                      values: load.data.variants.map((v) =>
                        v.rates.replied.rate === null ? null : v.rates.replied.rate * 100,
                      ),
                    },
                  ]}
                />
                <Table
                  caption="Per variant: rates with 95 % Wilson intervals"
                  showCaption
                  columns={['Variant', 'Weight', 'Sent', 'Replied', 'Qualified', 'Booked', 'Opted out']}
                >
                  {load.data.variants.map((v) => (
                    <tr key={v.variant}>
                      <th scope="row">
                        <UserText text={v.variant} />
                      </th>
                      <td>{v.weight ?? '—'}</td>
                      <td>{v.sent}</td>
                      <td>{pct(v.rates.replied)}</td>
                      <td>{pct(v.rates.qualified)}</td>
                      <td>{pct(v.rates.booked)}</td>
                      <td>{pct(v.rates.optedOut)}</td>
                    </tr>
                  ))}
                </Table>
              </div>
            </>
          )}
        </>
      )}
    </section>
  );
}

export function AnalyticsPage() {
  const [range, setRange] = useState(initialRange);
  const [draft, setDraft] = useState(range);
  const summary = useLoad(
    () => get<Summary>(`/v1/analytics/summary${query({ from: range.from, to: range.to, groupBy: 'day' })}`),
    [range.from, range.to],
  );
  const apply = (e: Event) => {
    e.preventDefault();
    setRange(draft);
    history.replaceState(null, '', `${location.pathname}${query(draft)}`);
  };
  return (
    <Page title="Analytics">
      <form class="card range" onSubmit={apply} aria-label="Date range">
        <label for="range-from">From</label>
        <input
          id="range-from"
          type="date"
          required
          value={draft.from}
          onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })}
        />
        <label for="range-to">To</label>
        <input
          id="range-to"
          type="date"
          required
          value={draft.to}
          onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })}
        />
        <button type="submit">Show</button>
        <a href={`/v1/analytics/summary${query({ from: range.from, to: range.to, format: 'csv' })}`} download>
          Summary CSV
        </a>
        <a href={`/v1/analytics/deliverability${query({ from: range.from, to: range.to, format: 'csv' })}`} download>
          Deliverability CSV
        </a>
      </form>
      <LoadStatus load={summary} what="the summary" />
      {summary.data && (
        <>
          <SpeedToLead total={summary.data.total} />
          <FunnelCard total={summary.data.total} />
          <OverTime summary={summary.data} />
        </>
      )}
      <DeliverabilityCard from={range.from} to={range.to} />
      <CampaignsCard from={range.from} to={range.to} />
      <OpeningsCard />
    </Page>
  );
}

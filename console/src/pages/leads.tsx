import { useEffect, useState } from 'preact/hooks';
import { errorText, get, query } from '../api';
import { leadName, when } from '../format';
import { Link } from '../router';
import type { Lead } from '../types';
import { LoadStatus, Page, Table } from '../ui';
import { FilterForm, NO_FILTERS, filterQuery, type Filters } from './lead-filters';
import { ImportPanel } from './leads-import';
import { UserText } from '../user-text';

type Listing = { leads: Lead[]; nextToken: string | null };

export function LeadsPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [list, setList] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = (token?: string) =>
    // sort=created (the plain listing's own order) asks for lastMessage, which only the channel filter needs: without it the cheaper plain listing answers.
    get<Listing>(
      `/v1/leads${query({ ...(filters.channel ? { sort: 'created' } : {}), limit: 50, nextToken: token, ...filterQuery(filters) })}`,
    ).then(
      (page) => {
        const leads = page.leads.filter((l) => !filters.channel || l.lastMessage?.channel === filters.channel);
        setList((prev) => ({ leads: token && prev ? [...prev.leads, ...leads] : leads, nextToken: page.nextToken }));
        setError(null);
      },
      (e: unknown) => setError(errorText(e)),
    );

  useEffect(() => {
    // Typing in the search box: wait for a pause before asking the server.
    const t = window.setTimeout(() => void load(), 200);
    return () => window.clearTimeout(t);
    // The filters' value, not their object (a new one every render), decides when to load again.
  }, [JSON.stringify(filters)]);

  return (
    <Page title="Leads">
      <ImportPanel onFinished={() => void load()} />
      <FilterForm value={filters} onChange={setFilters} withSearch />
      <LoadStatus load={{ data: list, error }} what="leads" />
      {list && (
        <Table
          caption="Leads"
          columns={['Name', 'Phone', 'Email', 'Profile', 'AI', 'Last activity']}
          below={
            <>
              {list.leads.length === 0 && <p>No leads match.</p>}
              {list.nextToken && (
                <button type="button" onClick={() => void load(list.nextToken ?? undefined)}>
                  Load more
                </button>
              )}
            </>
          }
        >
          {list.leads.map((l) => (
            <tr key={l.id}>
              <td>
                <Link href={`/leads/${encodeURIComponent(l.id)}`}>
                  <UserText text={leadName(l)} />
                </Link>
              </td>
              <td>{l.phone ?? '—'}</td>
              <td class="wrap">{l.email === null ? '—' : <UserText text={l.email} />}</td>
              <td>
                <UserText text={l.customerProfile} />
              </td>
              <td>{l.isAiOn ? 'on' : 'off'}</td>
              <td>{when(l.lastActivityAt)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Page>
  );
}

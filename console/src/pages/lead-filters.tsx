import { get } from '../api';
import type { Profile } from '../types';
import { useLoad } from '../ui';

export interface Filters {
  search: string;
  needsAttention: boolean;
  profile: string;
  tag: string;
  channel: string;
  aiOn: '' | 'true' | 'false';
}

export const NO_FILTERS: Filters = { search: '', needsAttention: false, profile: '', tag: '', channel: '', aiOn: '' };

/** The list's query parameters (GET /v1/leads); the channel filter is applied to the listed leads' last message. */
export function filterQuery(f: Filters): Record<string, string | undefined> {
  return {
    search: f.search.trim() || undefined,
    needsAttention: f.needsAttention ? 'true' : undefined,
    profile: f.profile || undefined,
    tag: f.tag.trim() || undefined,
    aiOn: f.aiOn || undefined,
  };
}

export function FilterForm({
  value,
  onChange,
  withSearch,
}: {
  value: Filters;
  onChange: (f: Filters) => void;
  withSearch?: boolean;
}) {
  const profiles = useLoad(() => get<{ profiles: Profile[] }>('/v1/customerProfiles'), []);
  const set = (patch: Partial<Filters>) => onChange({ ...value, ...patch });
  return (
    <form class="filters" role="search" aria-label="Filter leads" onSubmit={(e) => e.preventDefault()}>
      {withSearch && (
        <div class="field grow">
          <label for="f-search">Search</label>
          <input
            id="f-search"
            type="search"
            placeholder="Name, phone, email or external id"
            value={value.search}
            onInput={(e) => set({ search: e.currentTarget.value })}
          />
        </div>
      )}
      <div class="field check">
        <input
          id="f-attention"
          type="checkbox"
          checked={value.needsAttention}
          onChange={(e) => set({ needsAttention: e.currentTarget.checked })}
        />
        <label for="f-attention">Needs attention</label>
      </div>
      <div class="field">
        <label for="f-profile">Profile</label>
        <select id="f-profile" value={value.profile} onChange={(e) => set({ profile: e.currentTarget.value })}>
          <option value="">Any</option>
          {profiles.data?.profiles.map((p) => (
            <option key={p.id} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-tag">Tag</label>
        <input id="f-tag" type="text" value={value.tag} onChange={(e) => set({ tag: e.currentTarget.value })} />
      </div>
      <div class="field">
        <label for="f-channel">Channel</label>
        <select id="f-channel" value={value.channel} onChange={(e) => set({ channel: e.currentTarget.value })}>
          <option value="">Any</option>
          <option value="sms">SMS</option>
          <option value="voice">Voice</option>
          <option value="email">Email</option>
        </select>
      </div>
      <div class="field">
        <label for="f-ai">AI</label>
        <select id="f-ai" value={value.aiOn} onChange={(e) => set({ aiOn: e.currentTarget.value as Filters['aiOn'] })}>
          <option value="">On or off</option>
          <option value="true">On</option>
          <option value="false">Off</option>
        </select>
      </div>
    </form>
  );
}

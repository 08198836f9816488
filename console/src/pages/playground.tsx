import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, post } from '../api';
import type { Profile } from '../types';
import { ErrorNote, LoadStatus, Page, useAction, useLoad } from '../ui';
import { UserText } from '../user-text';

interface Playground {
  id: string;
  profile: string;
  lead: { firstName: string; lastName: string };
  messages: { id: string; from: 'lead' | 'agent'; channel: string; text: string; at: string }[];
  notes: { at: string; text: string }[];
  state: { tags: string[]; summary: string | null; isHot: boolean; isQualified: boolean };
}

/** How fast the simulated voice "speaks" the agent's words: an interruption cuts what is not yet said, as on a call. */
const WORD_MS = 220;
const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

type RelayOut = { type: string; token?: string; last?: boolean; handoffData?: string };

/**
 * A simulated call: this page plays Twilio's ConversationRelay. It opens the
 * playground's WebSocket, sends `setup`, the lead's words as final
 * `prompt`s, keys as `dtmf` and `interrupt` with what was heard so far; the
 * server answers with `text` tokens and `end`, exactly as to a real call.
 * The tokens are "spoken" at a voice's pace, so an interruption can fall
 * in the middle of an answer.
 */
function useSimulatedCall(playgroundId: string, onTurnDone: () => void) {
  const socket = useRef<WebSocket | null>(null);
  const queue = useRef<string[]>([]);
  const [spoken, setSpoken] = useState('');
  const [speaking, setSpeaking] = useState(false);
  const [state, setState] = useState<'idle' | 'connecting' | 'live' | 'ended'>('idle');
  const [ended, setEnded] = useState<string | null>(null);
  const [greeting, setGreeting] = useState<string | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const spokenRef = useRef('');

  const tick = () => {
    const next = queue.current.shift();
    if (next === undefined) {
      timer.current = undefined;
      setSpeaking(false);
      onTurnDone();
      return;
    }
    spokenRef.current += next;
    setSpoken(spokenRef.current);
    timer.current = window.setTimeout(tick, WORD_MS);
  };
  const speak = (token: string) => {
    if (token !== '') queue.current.push(token);
    if (timer.current === undefined && queue.current.length > 0) {
      setSpeaking(true);
      timer.current = window.setTimeout(tick, 0);
    }
  };
  const stopSpeaking = () => {
    queue.current = [];
    if (timer.current !== undefined) window.clearTimeout(timer.current);
    timer.current = undefined;
    setSpeaking(false);
  };
  useEffect(
    () => () => {
      stopSpeaking();
      socket.current?.close();
    },
    [],
  );

  const send = (m: object) => socket.current?.send(JSON.stringify(m));
  const start = async () => {
    setState('connecting');
    setEnded(null);
    const placed = await post<{ greeting: string; relayPath: string }>(
      `/console/api/playground/${encodeURIComponent(playgroundId)}/call`,
    );
    setGreeting(placed.greeting);
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${placed.relayPath}`);
    socket.current = ws;
    ws.onopen = () => {
      send({ type: 'setup', callSid: `CAplayground${Date.now()}`, direction: 'outbound-api', customParameters: {} });
      setState('live');
      onTurnDone();
    };
    ws.onmessage = (e) => {
      const m = JSON.parse(String(e.data)) as RelayOut;
      if (m.type === 'text') speak(m.token ?? '');
      if (m.type === 'end') {
        let reason = 'completed';
        try {
          reason = String((JSON.parse(m.handoffData ?? '{}') as { reasonCode?: string }).reasonCode ?? reason);
        } catch {
          /* keep the default */
        }
        setEnded(reason);
        ws.close();
      }
    };
    ws.onclose = () => {
      setState('ended');
      onTurnDone();
    };
  };
  const say = (text: string) => {
    stopSpeaking();
    spokenRef.current = '';
    setSpoken('');
    send({ type: 'prompt', voicePrompt: text, lang: 'en-US', last: true });
  };
  const interrupt = () => {
    const heard = spokenRef.current;
    stopSpeaking();
    send({ type: 'interrupt', utteranceUntilInterrupt: heard, durationUntilInterruptMs: heard.length * 60 });
    // The server shortens the stored answer; the thread shows it once it has.
    window.setTimeout(onTurnDone, 300);
  };
  const press = (digit: string) => {
    stopSpeaking();
    spokenRef.current = '';
    setSpoken('');
    send({ type: 'dtmf', digit });
  };
  const hangUp = () => socket.current?.close(1000);
  return { state, ended, greeting, spoken, speaking, start, say, interrupt, press, hangUp };
}

function Sandbox({ playground, onChange }: { playground: Playground; onChange: (p: Playground) => void }) {
  const [text, setText] = useState('');
  const [words, setWords] = useState('');
  const action = useAction();
  const refresh = () =>
    void get<Playground>(`/console/api/playground/${encodeURIComponent(playground.id)}`).then(onChange, () => {});
  const call = useSimulatedCall(playground.id, refresh);
  const live = call.state === 'live';

  const sendText = async (e: Event) => {
    e.preventDefault();
    const t = text.trim();
    if (!t) return;
    const ok = await action.run(async () => {
      const r = await post<{ replies: string[]; playground: Playground }>(
        `/console/api/playground/${encodeURIComponent(playground.id)}/messages`,
        { text: t },
      );
      onChange(r.playground);
    });
    if (ok) setText('');
  };
  const say = (e: Event) => {
    e.preventDefault();
    const t = words.trim();
    if (!t || !live) return;
    call.say(t);
    setWords('');
    window.setTimeout(refresh, 300);
  };

  return (
    <div class="playground">
      <section class="card" aria-labelledby="pg-conversation">
        <h2 id="pg-conversation">Conversation</h2>
        {playground.messages.length === 0 && <p class="muted">Nothing said yet.</p>}
        <ol class="thread" aria-live="polite" aria-label="Playground conversation">
          {playground.messages.map((m) => (
            <li key={m.id} class={`msg ${m.from === 'agent' ? 'outbound' : 'inbound'}`}>
              <div class="msg-meta">
                <span>{m.from === 'agent' ? 'Agent' : 'You (as the lead)'}</span>
                <span>{m.channel === 'voice' ? 'call' : 'text'}</span>
              </div>
              <p class="msg-text">
                <UserText text={m.text} />
              </p>
            </li>
          ))}
          {call.speaking && (
            <li class="msg outbound speaking">
              <div class="msg-meta">
                <span>Agent (speaking)</span>
                <span>call</span>
              </div>
              <p class="msg-text">{call.spoken}</p>
            </li>
          )}
        </ol>
      </section>

      <section class="card stack" aria-labelledby="pg-text">
        <h2 id="pg-text">By text</h2>
        <form class="stack" onSubmit={sendText}>
          <label for="pg-text-input">Write as the lead</label>
          <textarea
            id="pg-text-input"
            rows={2}
            maxLength={2000}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <ErrorNote error={action.error} />
          <div class="buttons">
            <button type="submit" disabled={action.busy || !text.trim()}>
              Send text
            </button>
          </div>
        </form>
      </section>

      <section class="card stack" aria-labelledby="pg-call">
        <h2 id="pg-call">As a call</h2>
        <p class="muted">
          This page plays the phone network: your words go to the agent as ConversationRelay's prompts, and its answer
          is spoken word by word.
        </p>
        {!live && (
          <div class="buttons">
            <button type="button" onClick={() => void call.start()} disabled={call.state === 'connecting'}>
              Start simulated call
            </button>
          </div>
        )}
        {call.state === 'ended' && <p role="status">Call ended{call.ended ? ` (${call.ended})` : ''}.</p>}
        {live && (
          <>
            <p role="status">Call in progress{call.greeting ? `: the agent greeted with "${call.greeting}"` : ''}.</p>
            <form class="stack" onSubmit={say}>
              <label for="pg-say">Say as the lead</label>
              <input id="pg-say" maxLength={2000} value={words} onInput={(e) => setWords(e.currentTarget.value)} />
              <div class="buttons">
                <button type="submit" disabled={!words.trim()}>
                  Say
                </button>
                <button type="button" class="secondary" onClick={call.interrupt} disabled={!call.speaking}>
                  Interrupt
                </button>
                <button type="button" class="secondary" onClick={call.hangUp}>
                  Hang up
                </button>
              </div>
            </form>
            <fieldset class="keypad">
              <legend>Keypad</legend>
              <div class="keys">
                {KEYS.map((k) => (
                  <button
                    type="button"
                    class="secondary"
                    key={k}
                    onClick={() => call.press(k)}
                    aria-label={`Press ${k}`}
                  >
                    {k}
                  </button>
                ))}
              </div>
            </fieldset>
          </>
        )}
      </section>

      <section class="card" aria-labelledby="pg-notes">
        <h2 id="pg-notes">What the agent did</h2>
        <p class="muted">
          Tags, hot, qualified and the summary stay with this sandbox lead; anything else (an opt-out, a transfer) is
          only noted here. Nothing reaches anyone.
        </p>
        <ul aria-label="Agent actions">
          {playground.notes.map((n, i) => (
            <li key={`${n.at}-${i}`}>
              <UserText text={n.text} />
            </li>
          ))}
        </ul>
        <p>
          Tags: {playground.state.tags.length > 0 ? playground.state.tags.join(', ') : 'none'} · Hot:{' '}
          {playground.state.isHot ? 'yes' : 'no'} · Qualified: {playground.state.isQualified ? 'yes' : 'no'}
        </p>
      </section>
    </div>
  );
}

/**
 * The playground (docs/voice.md): talk to a profile's agent as a lead, by
 * text or as a simulated call, without a phone. The conversation is a
 * sandbox in the server's memory: nobody is contacted, nothing is stored,
 * sent or counted.
 */
export function PlaygroundPage() {
  const profiles = useLoad(() => get<{ profiles: Profile[] }>('/v1/customerProfiles'), []);
  const [profile, setProfile] = useState('');
  const [firstName, setFirstName] = useState('');
  const [playground, setPlayground] = useState<Playground | null>(null);
  const action = useAction();
  const chosen = profile || profiles.data?.profiles[0]?.name || '';

  const start = async (e: Event) => {
    e.preventDefault();
    await action.run(async () => {
      if (playground) await del(`/console/api/playground/${encodeURIComponent(playground.id)}`).catch(() => {});
      setPlayground(null);
      setPlayground(await post<Playground>('/console/api/playground', { profile: chosen, firstName }));
    });
  };

  return (
    <Page title="Playground">
      <p>
        Talk to a profile's agent as if you were a lead. Nobody is contacted: nothing is sent, stored or counted in
        analytics.
      </p>
      <LoadStatus load={profiles} what="profiles" />
      {profiles.data && (
        <form class="card stack" onSubmit={start} aria-label="Start a playground conversation">
          <label for="pg-profile">Profile</label>
          <select id="pg-profile" value={chosen} onChange={(e) => setProfile(e.currentTarget.value)}>
            {profiles.data.profiles.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
          <label for="pg-first-name">The lead's first name</label>
          <input
            id="pg-first-name"
            maxLength={100}
            placeholder="Alex"
            value={firstName}
            onInput={(e) => setFirstName(e.currentTarget.value)}
          />
          <ErrorNote error={action.error} />
          <div class="buttons">
            <button type="submit" disabled={action.busy || !chosen}>
              {playground ? 'Start over' : 'Start'}
            </button>
          </div>
        </form>
      )}
      {playground && <Sandbox key={playground.id} playground={playground} onChange={setPlayground} />}
    </Page>
  );
}

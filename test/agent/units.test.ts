import { describe, expect, it } from 'vitest';
import { actionsFromAnswer } from '../../src/agent/openai.js';
import { checkActions, type AgentInput } from '../../src/agent/provider.js';
import { commandActions, hotWord, scriptedDecide } from '../../src/agent/scripted.js';
import { loadConfig } from '../../src/platform/config.js';

function input(over: Partial<AgentInput> = {}): AgentInput {
  return {
    profile: { name: 'p', instructions: null, openingMessage: null, questions: ['Q1?', 'Q2?'] },
    lead: {
      id: 'l',
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '+14155550100',
      email: null,
      timeZone: null,
      externalLeadId: null,
      isHot: false,
      isQualified: false,
      summary: null,
      tags: [],
      additionalInfo: {},
    },
    contextNotes: [],
    commands: [],
    conversation: [],
    now: new Date('2030-01-01T00:00:00Z'),
    ...over,
  };
}

const lead = (text: string) => ({ from: 'lead' as const, text, channel: 'sms' as const, isAiGenerated: false, at: '' });
const ai = (text: string) => ({ from: 'agent' as const, text, channel: 'sms' as const, isAiGenerated: true, at: '' });

describe('action validation', () => {
  it('accepts well-formed actions and refuses anything else', () => {
    expect(
      checkActions([{ type: 'reply', text: 'Hi' }, { type: 'optOut' }, { type: 'optOut', channels: ['sms'] }]),
    ).toHaveLength(3);
    expect(() => checkActions([{ type: 'reply', text: ' ' }])).toThrow(/invalid arguments for reply/);
    expect(() => checkActions([{ type: 'scheduleFollowUp', delayMinutes: 0, text: 'x' }])).toThrow(/scheduleFollowUp/);
    expect(() => checkActions([{ type: 'scheduleFollowUp', delayMinutes: 1.5, text: 'x' }])).toThrow(
      /scheduleFollowUp/,
    );
    expect(() => checkActions([{ type: 'optOut', channels: ['fax'] }])).toThrow(/optOut/);
    expect(() => checkActions([{ type: 'toString' }])).toThrow(/unknown tool/);
    expect(() => checkActions(Array.from({ length: 21 }, () => ({ type: 'markHot' })))).toThrow(/too many/);
    expect(() => checkActions('reply')).toThrow(/list of actions/);
  });

  it('reads chat-completions answers: tool calls become actions, plain content is not an action', () => {
    const answer = (message: unknown) => ({ choices: [{ index: 0, message }] });
    expect(actionsFromAnswer(answer({ role: 'assistant', content: 'Hello there' }))).toEqual([]);
    expect(
      actionsFromAnswer(
        answer({
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'tagLead', arguments: '{"name":"vip","condition":"big budget"}' },
            },
          ],
        }),
      ),
    ).toEqual([{ type: 'tagLead', name: 'vip', condition: 'big budget' }]);
    expect(() => actionsFromAnswer(answer({ tool_calls: [{ type: 'retrieval' }] }))).toThrow(/not a function call/);
    expect(() => actionsFromAnswer(answer({ tool_calls: {} }))).toThrow(/not a list/);
    expect(() => actionsFromAnswer({ choices: [] })).toThrow(/no choices/);
  });
});

describe('the scripted agent, as a pure function', () => {
  it('asks the questions in order, then qualifies once', () => {
    expect(scriptedDecide(input({ conversation: [lead('hi')] }))).toEqual([{ type: 'reply', text: 'Q1?' }]);
    expect(scriptedDecide(input({ conversation: [lead('hi'), ai('Q1?'), lead('a1')] }))).toEqual([
      { type: 'reply', text: 'Q2?' },
    ]);
    const done = [lead('hi'), ai('Q1?'), lead('a1'), ai('Q2?'), lead('a2')];
    expect(scriptedDecide(input({ conversation: done })).map((a) => a.type)).toEqual([
      'markQualified',
      'tagLead',
      'updateSummary',
      'reply',
    ]);
    expect(scriptedDecide(input({ conversation: done })).find((a) => a.type === 'updateSummary')).toEqual({
      type: 'updateSummary',
      summary: 'Q: Q1?\nA: a1\nQ: Q2?\nA: a2',
    });
    const qualified = input({ conversation: done });
    qualified.lead.isQualified = true;
    expect(scriptedDecide(qualified)).toEqual([]);
  });

  it('reads buying words, but not their negation', () => {
    expect(hotWord('I want to buy ASAP')).toBe('buy');
    expect(hotWord('We are ready')).toBe('ready');
    expect(hotWord("I'm not interested")).toBeNull();
    expect(hotWord("don't want to buy")).toBeNull();
    expect(hotWord('What is the price?')).toBeNull();
  });

  it('understands the simple command forms', () => {
    expect(commandActions('follow up in 2 hours: Still there?', input())).toEqual([
      { type: 'scheduleFollowUp', delayMinutes: 120, text: 'Still there?' },
    ]);
    expect(commandActions('Follow-up in 3 days', input())).toEqual([
      { type: 'scheduleFollowUp', delayMinutes: 4320, text: 'Hi Ann, just following up. Do you have any questions?' },
    ]);
    expect(commandActions('follow up in 1 minute - ping', input())).toEqual([
      { type: 'scheduleFollowUp', delayMinutes: 1, text: 'ping' },
    ]);
    expect(commandActions('send message: Hello!', input())).toEqual([{ type: 'reply', text: 'Hello!' }]);
    expect(commandActions('please be nice', input())).toBeNull();
  });
});

describe('AI configuration', () => {
  it('defaults to the scripted agent', () => {
    expect(loadConfig({}).ai).toEqual({
      provider: 'scripted',
      openaiBaseUrl: 'https://api.openai.com/v1',
      openaiApiKey: null,
      model: 'gpt-4o-mini',
      timeoutMs: 20_000,
      maxSteps: 5,
    });
  });

  it('reads the OpenAI settings and fails fast without a key', () => {
    const ai = loadConfig({
      PARLEY_AI_PROVIDER: 'openai',
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1/',
      PARLEY_AI_MODEL: 'llama3',
      PARLEY_AI_TIMEOUT_MS: '500',
    }).ai;
    expect(ai).toEqual({
      provider: 'openai',
      openaiBaseUrl: 'http://127.0.0.1:9/v1',
      openaiApiKey: 'sk-x',
      model: 'llama3',
      timeoutMs: 500,
      maxSteps: 5,
    });
    expect(() => loadConfig({ PARLEY_AI_PROVIDER: 'openai' })).toThrow(
      'OPENAI_API_KEY must be set when PARLEY_AI_PROVIDER=openai',
    );
    expect(() => loadConfig({ PARLEY_AI_PROVIDER: 'gpt' })).toThrow(
      /PARLEY_AI_PROVIDER must be one of scripted, openai/,
    );
    expect(() => loadConfig({ OPENAI_BASE_URL: 'ftp://x' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => loadConfig({ PARLEY_AI_TIMEOUT_MS: '10' })).toThrow(/PARLEY_AI_TIMEOUT_MS/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseTrainerStart, TrainerStartError } from './trainer-start.ts';

describe('parseTrainerStart', () => {
  it('reads a judge endpoint with or without a key, and an empty start', () => {
    expect(parseTrainerStart('{}')).toEqual({});
    expect(parseTrainerStart('{"judge":{"spec":"openai:gpt-4o-mini","apiKey":"sk-1"}}')).toEqual({
      judge: { spec: 'openai:gpt-4o-mini', apiKey: 'sk-1' },
    });
    expect(parseTrainerStart('{"judge":{"spec":"ollama:qwen3"}}')).toEqual({
      judge: { spec: 'ollama:qwen3' },
    });
  });

  it('names what is wrong with anything else, without echoing it', () => {
    expect(() => parseTrainerStart('')).toThrow(TrainerStartError);
    expect(() => parseTrainerStart('{"judge":')).toThrow(/start message .* is not JSON/);
    expect(() => parseTrainerStart('{"judge":{"spec":""}}')).toThrow(TrainerStartError);
    expect(() => parseTrainerStart('{"judge":{"spec":"x"},"extra":1}')).toThrow(TrainerStartError);
    const secret = 'sk-do-not-print-me';
    expect(() => parseTrainerStart(`{"judge":{"spec":"x","apiKey":7,"k":"${secret}"}}`)).toThrow(
      /^(?!.*sk-do-not-print-me)/s,
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  createApiClient,
  createBridgeTransport,
  type ExposedBridge,
  type Transport,
} from './client.ts';
import { RemoteCommandError } from './errors.ts';
import type { ApiEvent } from './events.ts';
import type { RequestFrame } from './protocol.ts';

/** A transport whose far end is a function from request frame to reply frames. */
function fakeTransport(answer: (frame: RequestFrame) => unknown[]) {
  let sink: (frame: unknown) => void = () => undefined;
  let closeSink: (reason: string) => void = () => undefined;
  const sent: RequestFrame[] = [];
  const transport: Transport = {
    send(frame) {
      sent.push(frame);
      queueMicrotask(() => {
        for (const reply of answer(frame)) sink(reply);
      });
    },
    onFrame: (s) => (sink = s),
    onClose: (s) => (closeSink = s),
    close: () => undefined,
  };
  return {
    transport,
    sent,
    push: (frame: unknown) => {
      sink(frame);
    },
    drop: (reason: string) => {
      closeSink(reason);
    },
  };
}

describe('api client', () => {
  it('round-trips a command and validates the response', async () => {
    const fake = fakeTransport((frame) => [
      { kind: 'response', id: frame.id, ok: true, result: { message: 'hello', receivedAt: 5 } },
    ]);
    const client = createApiClient(fake.transport);
    await expect(client.call('app.ping', { message: 'hello' })).resolves.toEqual({
      message: 'hello',
      receivedAt: 5,
    });
    expect(fake.sent[0]).toEqual({
      kind: 'request',
      id: 1,
      command: 'app.ping',
      payload: { message: 'hello' },
    });
  });

  it('rejects a response that breaks the contract, naming the field', async () => {
    const fake = fakeTransport((frame) => [
      { kind: 'response', id: frame.id, ok: true, result: { message: 1 } },
    ]);
    const client = createApiClient(fake.transport);
    await expect(client.call('app.ping', { message: 'x' })).rejects.toThrow(
      /response of 'app.ping'.*field 'message'/,
    );
  });

  it('rebuilds remote errors with their name and message', async () => {
    const fake = fakeTransport((frame) => [
      {
        kind: 'response',
        id: frame.id,
        ok: false,
        error: { name: 'NativeDialogUnavailableError', message: 'no dialogs' },
      },
    ]);
    const client = createApiClient(fake.transport);
    await expect(client.call('dialog.openPaths', { title: 't' })).rejects.toMatchObject({
      name: 'NativeDialogUnavailableError',
      message: 'no dialogs',
    });
  });

  it('delivers valid events to listeners of their kind and drops malformed ones', () => {
    const fake = fakeTransport(() => []);
    const client = createApiClient(fake.transport);
    const navigations: ApiEvent[] = [];
    const all: ApiEvent[] = [];
    client.on('menu.navigate', (event) => navigations.push(event));
    const stop = client.onAny((event) => all.push(event));
    fake.push({ kind: 'event', event: { kind: 'menu.navigate', at: 1, view: 'runs' } });
    fake.push({ kind: 'event', event: { kind: 'menu.toggleTheme', at: 2 } });
    fake.push({ kind: 'event', event: { kind: 'menu.navigate', at: 3, view: 'nowhere' } });
    stop();
    fake.push({ kind: 'event', event: { kind: 'menu.toggleTheme', at: 4 } });
    expect(navigations).toEqual([{ kind: 'menu.navigate', at: 1, view: 'runs' }]);
    expect(all.map((event) => event.at)).toEqual([1, 2]);
  });

  it('fails pending and later calls when the connection drops', async () => {
    const fake = fakeTransport(() => []);
    const client = createApiClient(fake.transport);
    const pending = client.call('app.info', {});
    fake.drop('socket closed');
    await expect(pending).rejects.toMatchObject({ name: 'ApiDisconnectedError' });
    await expect(client.call('app.info', {})).rejects.toThrow(/socket closed/);
  });

  it('refuses a command the contract does not know', async () => {
    const client = createApiClient(fakeTransport(() => []).transport);
    // @ts-expect-error: the name is not part of the contract.
    await expect(client.call('app.unknown', {})).rejects.toMatchObject({
      name: 'UnknownCommandError',
    });
  });
});

/** A preload bridge whose main process is a function from request frame to response frame. */
function fakeBridge(answer: (frame: RequestFrame) => Promise<unknown>) {
  const listeners = new Set<(event: unknown) => void>();
  const requested: RequestFrame[] = [];
  const bridge: ExposedBridge = {
    request(frame) {
      requested.push(frame);
      return answer(frame);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    bridge,
    requested,
    listeners,
    push: (event: unknown) => {
      for (const listener of listeners) listener(event);
    },
  };
}

describe('createBridgeTransport', () => {
  it('round-trips a command through the bridge', async () => {
    const fake = fakeBridge((frame) =>
      Promise.resolve({
        kind: 'response',
        id: frame.id,
        ok: true,
        result: { message: 'hi', receivedAt: 7 },
      }),
    );
    const client = createApiClient(createBridgeTransport(fake.bridge));
    await expect(client.call('app.ping', { message: 'hi' })).resolves.toEqual({
      message: 'hi',
      receivedAt: 7,
    });
    expect(fake.requested).toEqual([
      { kind: 'request', id: 1, command: 'app.ping', payload: { message: 'hi' } },
    ]);
  });

  it('rebuilds a host error frame with its name and fields on the page side', async () => {
    const fake = fakeBridge((frame) =>
      // What the main process answers: a plain, structured-cloned frame.
      Promise.resolve(
        structuredClone({
          kind: 'response',
          id: frame.id,
          ok: false,
          error: {
            name: 'ApiValidationError',
            message: "request 'dialog.openPaths': field 'title': expected string",
            fields: ['title'],
          },
        }),
      ),
    );
    const client = createApiClient(createBridgeTransport(fake.bridge));
    const failure = client.call('dialog.openPaths', { title: 't' });
    await expect(failure).rejects.toBeInstanceOf(RemoteCommandError);
    await expect(failure).rejects.toMatchObject({
      name: 'ApiValidationError',
      fields: ['title'],
      message: expect.stringContaining("field 'title'") as unknown,
    });
  });

  it('delivers events from the bridge', () => {
    const fake = fakeBridge(() => new Promise(() => undefined));
    const client = createApiClient(createBridgeTransport(fake.bridge));
    const seen: ApiEvent[] = [];
    client.onAny((event) => seen.push(event));
    fake.push({ kind: 'menu.navigate', view: 'runs', at: 3 });
    expect(seen).toEqual([{ kind: 'menu.navigate', view: 'runs', at: 3 }]);
  });

  it('turns a rejected request into an IpcInvokeError naming the command', async () => {
    const fake = fakeBridge(() =>
      // contextBridge keeps only the message of what the preload rejects with.
      Promise.reject(new Error('Error invoking remote method: No handler registered')),
    );
    const client = createApiClient(createBridgeTransport(fake.bridge));
    await expect(client.call('settings.get', {})).rejects.toMatchObject({
      name: 'IpcInvokeError',
      message: expect.stringMatching(
        /did not answer 'settings\.get' \(.*No handler registered\); restart RLM Studio/,
      ) as unknown,
    });
  });

  it('turns a request that throws synchronously into an IpcInvokeError', async () => {
    const bridge: ExposedBridge = {
      request: () => {
        throw new Error('bridge gone');
      },
      onEvent: () => () => undefined,
    };
    const client = createApiClient(createBridgeTransport(bridge));
    await expect(client.call('app.info', {})).rejects.toMatchObject({
      name: 'IpcInvokeError',
      message: expect.stringContaining('bridge gone') as unknown,
    });
  });

  it('unsubscribes from the bridge on close', () => {
    const fake = fakeBridge(() => new Promise(() => undefined));
    const client = createApiClient(createBridgeTransport(fake.bridge));
    const seen: ApiEvent[] = [];
    client.onAny((event) => seen.push(event));
    expect(fake.listeners.size).toBe(1);
    client.dispose();
    expect(fake.listeners.size).toBe(0);
    fake.push({ kind: 'menu.toggleTheme', at: 4 });
    expect(seen).toEqual([]);
  });
});

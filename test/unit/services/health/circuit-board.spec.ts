import { CircuitBoard } from '../../../../services/health/circuit-board.ts';

it('reports the worst state per dependency with the cooldown left, and closes again', () => {
  const board = new CircuitBoard(10_000);
  board.track('adapter.fr-ppf');
  expect(board.view(0)).toEqual({ 'adapter.fr-ppf': { state: 'closed', failures: 0, cooldown_remaining: 0 } });
  board.opened({ service: 'adapter.fr-ppf', action: 'adapter.fr-ppf.send', failures: 7 }, 1_000);
  board.closed({ service: 'adapter.fr-ppf', action: 'adapter.fr-ppf.status' });
  expect(board.anyOpen()).toBe(true);
  expect(board.view(4_500)).toEqual({ 'adapter.fr-ppf': { state: 'open', failures: 7, cooldown_remaining: 7 } });
  board.halfOpened({ service: 'adapter.fr-ppf', action: 'adapter.fr-ppf.send' });
  expect(board.view(12_000)['adapter.fr-ppf']!.state).toBe('half_open');
  expect(board.anyOpen()).toBe(false);
  board.closed({ service: 'adapter.fr-ppf', action: 'adapter.fr-ppf.send' });
  expect(board.view(12_000)['adapter.fr-ppf']).toEqual({ state: 'closed', failures: 0, cooldown_remaining: 0 });
});

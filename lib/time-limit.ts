export type Settled = 'done' | 'failed' | 'late';

/** How `work` ends within `ms`: resolved, rejected, or still running (it is not cancelled, only no longer waited for). */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([
      work.then(
        (): Settled => 'done',
        (): Settled => 'failed',
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

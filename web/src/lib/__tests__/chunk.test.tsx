import { act, render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import { chunk } from '@/lib/chunk';

function View({ name }: { name: string }) {
  return <p>{name} view</p>;
}

describe('chunk', () => {
  it('downloads once, however often it is preloaded', async () => {
    let downloads = 0;
    const drops = chunk(async () => {
      downloads += 1;
      return { default: View };
    });
    await Promise.all([drops.preload(), drops.preload()]);
    await drops.preload();
    expect(downloads).toBe(1);
  });

  it('asks again after a failed download', async () => {
    let attempts = 0;
    const drops = chunk(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('connection dropped');
      return { default: View };
    });
    await expect(drops.preload()).rejects.toThrow('connection dropped');
    await drops.preload();
    expect(attempts).toBe(2);
  });

  it('renders a preloaded chunk without its fallback', async () => {
    const drops = chunk(async () => ({ default: View }));
    await drops.preload();
    await act(async () => {
      render(
        <Suspense fallback={<p>loading</p>}>
          <drops.Component name="Drops" />
        </Suspense>,
      );
    });
    expect(screen.getByText('Drops view')).toBeInTheDocument();
    expect(screen.queryByText('loading')).not.toBeInTheDocument();
  });

  it('shows the fallback until a chunk not yet loaded arrives', async () => {
    let arrive!: () => void;
    const drops = chunk(() => new Promise<{ default: typeof View }>((resolve) => (arrive = () => resolve({ default: View }))));
    render(
      <Suspense fallback={<p>loading</p>}>
        <drops.Component name="Drops" />
      </Suspense>,
    );
    expect(screen.getByText('loading')).toBeInTheDocument();
    await act(async () => arrive());
    expect(await screen.findByText('Drops view')).toBeInTheDocument();
  });
});

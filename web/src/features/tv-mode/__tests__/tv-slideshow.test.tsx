import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TvSlideshow } from '@/features/tv-mode/components/tv-slideshow';
import { renderWithProviders } from '@/test/render';

const slides = [1, 2, 3].map((n) => ({ id: `s${n}`, title: `Title ${n}`, text: `Text ${n}`, source: 'Source' }));
const seconds = (n: number) => act(() => vi.advanceTimersByTime(n * 1000));

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('TvSlideshow', () => {
  it('advances every 10 s, counts down, wraps, pauses and cycles the interval', () => {
    renderWithProviders(<TvSlideshow slides={slides} total={3} allLoaded exitTo="/" />);
    expect(screen.getByTestId('tv-position')).toHaveTextContent('1 of 3');
    expect(screen.getByTestId('tv-countdown')).toHaveTextContent('Next in 10s');
    seconds(3);
    expect(screen.getByTestId('tv-countdown')).toHaveTextContent('Next in 7s');
    seconds(7);
    expect(screen.getByText('Title 2')).toBeInTheDocument();
    expect(screen.getByTestId('tv-position')).toHaveTextContent('2 of 3');
    seconds(20);
    expect(screen.getByText('Title 1')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    seconds(30);
    expect(screen.getByText('Title 1')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Resume' }));

    const cycler = screen.getByRole('button', { name: /Interval 10s/ });
    fireEvent.click(cycler);
    expect(screen.getByRole('button', { name: /Interval 15s/ })).toBeInTheDocument();
    expect(screen.getByTestId('tv-countdown')).toHaveTextContent('Next in 15s');
    expect(screen.getByRole('link', { name: 'Exit TV Mode' })).toHaveAttribute('href', '/');
  });

  it('says how many sources a story has, in words', () => {
    renderWithProviders(<TvSlideshow slides={[{ ...slides[0], source: 'Reuters', sources: '5 sources' }, slides[1]]} total={2} allLoaded exitTo="/" />);
    expect(screen.getByTestId('tv-slide')).toHaveTextContent('Reuters · 5 sources');
    seconds(10);
    expect(screen.getByText('Title 2')).toBeInTheDocument();
    expect(screen.queryByTestId('story-sources')).toBeNull();
  });
});

import { act, renderHook } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCheckoutSession, startCheckout } from '@/lib/checkout';
import { useDarkMode } from '@/lib/dark-mode';
import { useToasts } from '@/lib/toast';
import { server } from '@/test/server';

const checkout = (answer: () => Response) => server.use(http.post('/api/create-checkout-session', answer));

afterEach(() => vi.useRealTimers());

describe('checkout', () => {
  it('fails when no url comes back', async () => {
    checkout(() => HttpResponse.json({}));
    await expect(createCheckoutSession()).rejects.toThrow('Failed to create checkout session - URL not received');
  });

  it('goes to the url after 100 ms', async () => {
    vi.useFakeTimers();
    checkout(() => HttpResponse.json({ url: '/checkout/test/abc' }));
    const go = vi.fn();
    await startCheckout(go);
    vi.advanceTimersByTime(99);
    expect(go).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(go).toHaveBeenCalledWith('/checkout/test/abc');
  });

  it('shows a Checkout Error toast on failure', async () => {
    checkout(() => new HttpResponse('down', { status: 502 }));
    const { result } = renderHook(() => useToasts());
    await act(() => startCheckout(vi.fn()));
    expect(result.current[0]).toMatchObject({ title: 'Checkout Error', description: '502: down', variant: 'destructive' });
  });
});

describe('dark mode', () => {
  it('toggles the dark class and stores the choice under darkMode', () => {
    const { result } = renderHook(() => useDarkMode());
    expect(result.current[0]).toBe(false);
    act(() => result.current[1]());
    expect(result.current[0]).toBe(true);
    expect(document.documentElement).toHaveClass('dark');
    expect(localStorage.getItem('darkMode')).toBe('true');
    act(() => result.current[1]());
    expect(document.documentElement).not.toHaveClass('dark');
    expect(localStorage.getItem('darkMode')).toBe('false');
  });
});

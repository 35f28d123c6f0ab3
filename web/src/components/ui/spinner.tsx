import { Loader2 } from 'lucide-react';

export function Spinner({ label = 'Loading', className = '' }: { label?: string; className?: string }) {
  return (
    <div role="status" aria-live="polite" className={`flex items-center justify-center p-6 ${className}`}>
      <Loader2 aria-hidden="true" className="h-8 w-8 animate-spin text-indigo-600" />
      <span className="sr-only">{label}</span>
    </div>
  );
}

export function FullPageSpinner() {
  return <Spinner className="min-h-screen" />;
}

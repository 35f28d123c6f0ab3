// The first paint's own script (built alone by scripts/first-paint.ts): see paint.ts.
import { firstPaint } from './paint';

void firstPaint(window).catch(() => undefined);

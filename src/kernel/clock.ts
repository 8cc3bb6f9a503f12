/** The one source of time: deciders never read the clock, commands carry `now`. Tests drive it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  constructor(private t: Date = new Date('2026-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.t);
  }
  set(t: Date | string): void {
    this.t = new Date(t);
  }
  advance(ms: number): void {
    this.t = new Date(this.t.getTime() + ms);
  }
}

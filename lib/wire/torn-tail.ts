/** The torn end of a record file (a .wandb log, a TensorBoard event file): what both file readers report. */

/** The end of a file that holds no whole record: where it starts, how long it is, why. */
export interface TornTail {
  offset: number;
  bytes: number;
  reason: string;
}

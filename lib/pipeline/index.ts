/** The archive pipeline: the one way into frozen data for every reader (openArchive). */
export { archiveRefusal, openArchive, type OpenArchiveOptions, type OpenedArchive } from "./open-archive";

// Server-Sent Events (the WHATWG `text/event-stream` format), read by hand:
// a browser's EventSource cannot send an `Authorization` header, so the
// stream transport reads GET /api/boards/NAME/events with fetch and feeds
// the text here, chunk by chunk, as it arrives.
//
// Lines end in LF, CRLF or CR, and a chunk may end between the CR and the LF
// of one line ending. `event:` names the event (default "message"), `data:`
// lines are joined with "\n", `id:` sets the last event id, which every later
// event keeps until another `id:`; a line starting with ":" is a comment
// (foldsyncd's heartbeat); a blank line dispatches the event, unless it has
// no data. One space after the colon is dropped; a field without a colon
// has an empty value; `retry:` and unknown fields are ignored.

export class EventStreamParser {
  constructor() {
    this.buffer = '';
    this.pendingCR = false;  // the last chunk ended in CR: a LF opening the next one belongs to it
    this.started = false;    // a byte-order mark may open the stream, once
    this.type = '';
    this.data = [];
    this.lastEventId = '';
    this.comments = 0;       // comment lines seen (heartbeats), for whoever watches the stream's life
  }

  /** Takes the next piece of text; returns the events it completed: [{ type, data, id }]. */
  push(text) {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.pendingCR = false;
    this.buffer += text;
    const events = [];
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf('\r', start);
      const lf = this.buffer.indexOf('\n', start);
      if (cr < 0 && lf < 0) break;
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      const line = this.buffer.slice(start, end);
      if (this.buffer[end] === '\r') {
        if (end + 1 < this.buffer.length) {
          start = this.buffer[end + 1] === '\n' ? end + 2 : end + 1;
        } else {
          start = end + 1;
          this.pendingCR = true;
        }
      } else {
        start = end + 1;
      }
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  line(line) {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) { this.comments += 1; return null; }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event': this.type = value; break;
      case 'data': this.data.push(value); break;
      case 'id': if (!value.includes('\u0000')) this.lastEventId = value; break;
      default:   // retry: the reconnect delay is the client's backoff, not the server's to set
    }
    return null;
  }

  dispatch() {
    const type = this.type || 'message';
    const data = this.data;
    this.type = '';
    this.data = [];
    if (data.length === 0) return null;
    return { type, data: data.join('\n'), id: this.lastEventId };
  }
}

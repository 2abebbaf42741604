"""Messages between the parties and the transcript that records them.

Every object one party hands to another passes through :meth:`Transcript.send`, which keeps
it *as delivered*.  The transcript is therefore an exact record of each party's view: a reader
(or a test) can walk ``transcript.received_by("proxy")`` and check that the proxy only ever
held ciphertexts, the public key and the public count N.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._crypto import ciphertext_bytes, is_ciphertext, is_public_key, key_length_of

__all__ = ["Message", "Transcript"]


@dataclass(frozen=True)
class Message:
    """One delivery: ``items`` are the objects exactly as the receiver got them.

    Attributes
    ----------
    step : str          the protocol step ("1 setup", "2 owners", "3.2 count", "3.7 release")
    sender, receiver : str
    content : str       what the items are, in the paper's notation (e.g. "E[R¹] upper triangle")
    items : tuple       the delivered objects (phe ``EncryptedNumber``, ``PaillierPublicKey`` or int)
    """

    step: str
    sender: str
    receiver: str
    content: str
    items: tuple = field(repr=False)

    @property
    def ciphertexts(self):
        """The items that are Paillier ciphertexts, in order."""
        return tuple(x for x in self.items if is_ciphertext(x))

    @property
    def n_ciphertexts(self):
        """The number of ciphertexts delivered."""
        return len(self.ciphertexts)

    @property
    def ciphertext_sizes(self):
        """Bytes of each ciphertext integer (≈ 2 × key length / 8 each)."""
        return tuple(ciphertext_bytes(c) for c in self.ciphertexts)

    @property
    def exponents(self):
        """The public fixed-point exponents that travel next to the ciphertexts."""
        return tuple(int(c.exponent) for c in self.ciphertexts)

    @property
    def plaintexts(self):
        """Items that are neither ciphertexts nor a public key (here: only the count N)."""
        return tuple(x for x in self.items if not is_ciphertext(x) and not is_public_key(x))

    @property
    def kind(self):
        """What was delivered: "ciphertexts", "public key", "public count" joined by " + " (or "empty")."""
        kinds = []
        if self.ciphertexts:
            kinds.append("ciphertexts")
        if any(is_public_key(x) for x in self.items):
            kinds.append("public key")
        if self.plaintexts:
            kinds.append("public count")
        return " + ".join(kinds) or "empty"

    def summary(self):
        """Summarise the message as one row for tables: who, what, how many, how big.

        Returns
        -------
        dict
            ``step``, ``sender``, ``receiver``, ``content``, ``kind``, ``n_ciphertexts``,
            ``ciphertext_bytes``, ``bytes_each``, ``exponents``, ``plaintext`` and ``key_bits``.
        """
        sizes = self.ciphertext_sizes
        keys = [x for x in self.items if is_public_key(x)]
        return dict(
            step=self.step, sender=self.sender, receiver=self.receiver, content=self.content, kind=self.kind,
            n_ciphertexts=len(sizes), ciphertext_bytes=int(sum(sizes)),
            bytes_each=(min(sizes), max(sizes)) if sizes else None,
            exponents=tuple(sorted(set(self.exponents))),
            plaintext=self.plaintexts[0] if len(self.plaintexts) == 1 else (self.plaintexts or None),
            key_bits=key_length_of(keys[0]) if keys else None,
        )


class Transcript:
    """The ordered log of every :class:`Message` of one protocol run.

    Parameters
    ----------
    messages : iterable of Message, default=()
        Messages already delivered (copied into a new list).
    """

    def __init__(self, messages=()):
        self.messages = list(messages)

    def send(self, step, sender, receiver, content, items):
        """Record a delivery and return the items (so the call reads like a hand-over).

        Parameters
        ----------
        step : str
            The protocol step, e.g. ``"3.2 count"``.
        sender : str
            Who sends.
        receiver : str
            Who receives.
        content : str
            What the items are, in the paper's notation.
        items : iterable
            The delivered objects.

        Returns
        -------
        tuple
            The items, as delivered.
        """
        msg = Message(step, sender, receiver, content, tuple(items))
        self.messages.append(msg)
        return msg.items

    def copy(self):
        """Copy the log (the messages themselves are shared: they are frozen).

        Returns
        -------
        Transcript
            A new transcript with the same messages.
        """
        return Transcript(self.messages)

    # -- views ---------------------------------------------------------------------------------
    @property
    def parties(self):
        """Party names in order of first appearance."""
        seen = []
        for m in self.messages:
            for p in (m.sender, m.receiver):
                if p not in seen:
                    seen.append(p)
        return seen

    def received_by(self, party):
        """List the messages ``party`` received, in order.

        Parameters
        ----------
        party : str
            A party's name.

        Returns
        -------
        list of Message
            Its messages.
        """
        return [m for m in self.messages if m.receiver == party]

    def view(self, party):
        """Collect everything ``party`` received, as one flat tuple of objects.

        Parameters
        ----------
        party : str
            A party's name.

        Returns
        -------
        tuple
            The items of every message it received, in order.
        """
        return tuple(x for m in self.received_by(party) for x in m.items)

    def summary(self):
        """Summarise every message, one dict each (see :meth:`Message.summary`).

        Returns
        -------
        list of dict
            :meth:`Message.summary` of each message, in order.
        """
        return [m.summary() for m in self.messages]

    def by_party(self):
        """Summarise what each party received.

        Returns
        -------
        dict
            Party → ``messages``, ``n_ciphertexts``, ``ciphertext_bytes``, ``plaintexts`` and ``public_key``.
        """
        out = {}
        for party in self.parties:
            received = self.received_by(party)
            out[party] = dict(
                messages=len(received),
                n_ciphertexts=sum(m.n_ciphertexts for m in received),
                ciphertext_bytes=sum(sum(m.ciphertext_sizes) for m in received),
                plaintexts=tuple(x for m in received for x in m.plaintexts),
                public_key=any(is_public_key(x) for m in received for x in m.items),
            )
        return out

    def to_text(self, max_owners=3):
        """Format a party-by-party table of what each one received.

        Parameters
        ----------
        max_owners : int, default=3
            Owners shown one by one; the others are folded into one line.

        Returns
        -------
        str
            The table.
        """
        lines = []
        rows = self.summary()
        owners = [p for p in self.parties if p.startswith("owner")]
        shown_owners = set(owners[:max_owners])
        for party in self.parties:
            if party.startswith("owner") and party not in shown_owners:
                continue
            lines.append(f"{party} received:")
            got = [r for r in rows if r["receiver"] == party]
            folded = 0
            for r in got:
                if r["sender"].startswith("owner") and r["sender"] not in shown_owners:
                    folded += 1
                    continue
                lines.append("  " + _describe(r))
            if folded:
                extra = [r for r in got if r["sender"].startswith("owner") and r["sender"] not in shown_owners]
                lines.append(f"  … and the same from {folded} more owners "
                             f"({sum(r['n_ciphertexts'] for r in extra)} ciphertexts, "
                             f"{sum(r['ciphertext_bytes'] for r in extra) / 1024:.1f} KiB)")
            if not got:
                lines.append("  (nothing)")
        hidden = len(owners) - len(shown_owners)
        if hidden > 0:
            lines.append(f"({hidden} more owners received the same public key)")
        return "\n".join(lines)

    def __str__(self):
        return self.to_text()

    def __len__(self):
        return len(self.messages)

    def __iter__(self):
        return iter(self.messages)


def _describe(row):
    parts = [f"from {row['sender']}: {row['content']}"]
    if row["n_ciphertexts"]:
        lo, hi = row["bytes_each"]
        size = f"{lo} B each" if lo == hi else f"{lo}–{hi} B each"
        noun = "ciphertext" if row["n_ciphertexts"] == 1 else "ciphertexts"
        parts.append(f"{row['n_ciphertexts']} {noun}, {size}, "
                     f"{row['ciphertext_bytes'] / 1024:.1f} KiB; exponent {', '.join(map(str, row['exponents']))}")
    if row["key_bits"]:
        parts.append(f"{row['key_bits']}-bit public key")
    if row["plaintext"] is not None:
        parts.append(f"plaintext {row['plaintext']!r}")
    return " — ".join(parts)

"""Secret rules for private keys written without their PEM armour.

A key copied out of its file without the ``-----BEGIN ... PRIVATE KEY-----``
line (a CI variable, a YAML value, a JSON field) is still the whole key. Its
base64 body has a fixed start: OpenSSH's container opens with the magic
``openssh-key-v1`` (base64 ``b3BlbnNzaC1rZXktdjE``), and a DER private key
opens with a SEQUENCE whose first member is a small INTEGER version, which no
certificate or public key does (those open with a nested SEQUENCE):

- PKCS#1 RSA (``MII...IBAAK``), PKCS#8 of any algorithm (``MII...IBAD``,
  ``MIG.AgEA``, Ed25519's ``MC4CAQAwBQYDK2VwBCIEI``) and SEC1 EC keys
  (``MHcCAQEEI``, ``MIG.AgEB``).

The validator decodes the body, with its line breaks (real or written
``\\n``) and indentation taken out, and counts it only when enough of it is
there to hold key material and it reads as random: a note quoting how a key
body starts, or a placeholder after the start, stays ordinary.
"""

from __future__ import annotations

from tree_ring.guard.rule import SECRET, Rule, rule, table
from tree_ring.guard.values import shannon_entropy

# Base64 characters, line breaks with the next line's indentation, and line
# breaks written as escapes (a key pasted into JSON). Each alternative starts
# with a different character and the loop is atomic, so it is linear.
_BODY = rb"(?>(?:[A-Za-z0-9+/=]|\r?\n[ \t]{0,16}|\\r\\n|\\n){0,2048})"
_B64 = rb"[A-Za-z0-9+/]"


def _start(head: bytes) -> bytes:
    """`head` not glued to base64 before it (a line break written ``\\n`` is
    no part of the body), as a look-behind placed after the head."""
    return head + rb"(?:(?<![A-Za-z0-9+/]" + head + rb")|(?<=\\n" + head + rb"))"


# An OpenSSH key's first 98 bytes are its header and public key; a private
# part follows. A DER key holds key material past its first few bytes; a
# whole Ed25519 key in PKCS#8 is 48 bytes.
_OPENSSH_MAGIC = b"openssh-key-v1\x00"
_OPENSSH_MIN = 128
_DER_MIN = 128
_DER_SMALLEST = 40
# Random base64 scores about 5.5 bits per character over these lengths;
# repeated filler ("AAAA...", "xxxx...") scores far less.
_RANDOM_BITS = 4.0


def _der_size(data: bytes) -> int:
    """The length a DER SEQUENCE at the start of `data` declares, header
    included, or 0 when it is none."""
    if len(data) < 4 or data[0] != 0x30:
        return 0
    first = data[1]
    if first < 0x80:
        return 2 + first
    if first == 0x81:
        return 3 + data[2]
    if first == 0x82:
        return 4 + (data[2] << 8 | data[3])
    return 0


def _key_body(span: str) -> bool:
    """A private key's base64 body, whole or long enough to hold key material."""
    import binascii  # here, not at import: most processes never judge a key body

    body = "".join(span.replace("\\r", "").replace("\\n", "").split()).rstrip("=")
    if shannon_entropy(body[len(body) // 2 :]) < _RANDOM_BITS:
        return False
    # A body cut short may end one character into a group, which holds no byte.
    body = body[:-1] if len(body) % 4 == 1 else body
    try:
        data = binascii.a2b_base64(body + "=" * (-len(body) % 4))
    except binascii.Error:
        return False
    if data.startswith(_OPENSSH_MAGIC):
        return len(data) >= _OPENSSH_MIN
    size = _der_size(data)
    return size >= _DER_SMALLEST and len(data) >= min(size, _DER_MIN)


_SHORT_HEADS = (b"MC4CAQAwBQYDK2VwBCIEI", b"MHcCAQEEI")

KEY_BODY_RULES: tuple[Rule, ...] = table(
    rule(
        "private-key-body",
        SECRET,
        "raw",
        _start(b"b3BlbnNzaC1rZXktdjEA") + _BODY,
        _key_body,
        heads=(b"b3BlbnNzaC1rZXktdjEA",),
        run=20,
    ),
    # A SEQUENCE with a two-byte length, then INTEGER 0: PKCS#1 RSA (a second
    # INTEGER follows) or PKCS#8 (a SEQUENCE follows).
    rule(
        "private-key-body",
        SECRET,
        "raw",
        _start(b"MII") + _B64 + rb"{3}IBA(?:AK|D)" + _BODY,
        _key_body,
        heads=(b"MII",),
    ),
    # A SEQUENCE with a one-byte length over 127, then INTEGER 0 or 1: PKCS#8
    # and SEC1 EC keys.
    rule(
        "private-key-body",
        SECRET,
        "raw",
        _start(b"MIG") + _B64 + rb"AgE(?:AM|BB)" + _BODY,
        _key_body,
        heads=(b"MIG",),
    ),
    # Short keys, whose first bytes are all fixed: Ed25519 in PKCS#8, P-256 in SEC1.
    rule(
        "private-key-body",
        SECRET,
        "raw",
        rb"M(?:" + b"|".join(_start(head)[1:] for head in _SHORT_HEADS) + rb")" + _BODY,
        _key_body,
        heads=_SHORT_HEADS,
    ),
)

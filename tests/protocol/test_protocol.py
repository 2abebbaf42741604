"""DPDPCA with real Paillier encryption: validation targets for the protocol and its audits.

Encrypted runs use 1024-bit keys (INSECURE, tests only: the InsecureKeyWarning is filtered
explicitly below) and tiny M so that the whole module stays within a few seconds.  The
statistical audits run on :class:`PlaintextDPDPCA`, which draws its noise with the same
function as the encrypted path (``protocol_noise``); ``test_encrypted_release_is_S_plus_protocol_noise``
ties the two together: the encrypted run decrypts to exactly S + protocol_noise(same seed).

Statistical tolerances:
* recipe C: μ̂ has standard error ≈ √(2/N) = 0.01 at N = 20 000; honest passes μ̂ ≤ μ + 4 SE,
  the σ/2 mutant has μ twice the documented one, ≥ 10 SE above the threshold here.
* recipe B: a factor-2 variance error gives |z| > 30 at these sizes.
* noise law: the sample variance of ν = 1.2·10⁵ N(0, τ²) entries has relative sd √(2/ν) ≈ 0.4 %,
  so a 2 % window is a 5-sd band.
"""

import math
import sys
import warnings

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import audit, privacy
from privpca_edu._validation import clip_rows
from privpca_edu.protocol import (
    FIXED_EXPONENT,
    DataOwner,
    InsecureKeyWarning,
    PlaintextDPDPCA,
    Proxy,
    centred_scatter,
    centred_worst_case_pair,
    decrypt_exact,
    encrypt_and_aggregate,
    owner_shares,
    protocol_noise,
    run_dpdpca,
)
from privpca_edu.protocol import _crypto
from privpca_edu.privacy import dpdpca_noise_scale

phe = pytest.importorskip("phe")

pytestmark = pytest.mark.filterwarnings("ignore::privpca_edu.protocol.InsecureKeyWarning")

KEY_BITS = 1024  # INSECURE: tests only
N_DRAWS = 20_000


@pytest.fixture(scope="module")
def keypair():
    return phe.generate_paillier_keypair(n_length=KEY_BITS)


def _owners(sizes=(7, 12, 5), d=3, seed=0, scale=(0.4, 0.2, 0.1, 0.05, 0.05)):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, d)) * np.array(scale[:d]) + 0.1 for n in sizes]


def _pooled_scatter(owners, data_norm=1.0):
    X = np.vstack([clip_rows(o, data_norm, warn=False)[0] for o in owners])
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc, X


# ------------------------------------------------------------------------- plaintext algebra
def test_share_algebra_is_exact_and_split_independent():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(57, 5))
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc
    for cuts in ([3, 20, 21, 40], [1, 2], [56]):
        blocks = np.split(X, cuts)
        for order in (blocks, blocks[::-1]):
            shares = [owner_shares(B) for B in order]
            R = sum(s[0] for s in shares)
            v = sum(s[1] for s in shares)
            N = sum(s[2] for s in shares)
            np.testing.assert_allclose(centred_scatter(R, v, N), S, rtol=1e-10, atol=1e-10 * np.abs(S).max())


def test_reference_noise_scales_and_noise_law():
    # Reference τ of Algorithm 2 (Δ = 1, the paper's calibration): (1, 1e-5) needs the classic formula at ε = 1.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        assert dpdpca_noise_scale(1.0, 1e-5, calibration="paper") == pytest.approx(4.844805, abs=1e-6)
    assert dpdpca_noise_scale(0.5, 1e-4, calibration="paper") == pytest.approx(8.687225, abs=1e-6)
    assert dpdpca_noise_scale(0.3, 1e-5, calibration="paper") == pytest.approx(16.149351, abs=1e-6)
    assert dpdpca_noise_scale(0.5, 1 / 108_000, calibration="paper") == pytest.approx(9.721329, abs=1e-6)
    # The corrected default is 4 B² times that, the analytic one smaller.
    assert dpdpca_noise_scale(0.5, 1e-4) == pytest.approx(4 * 8.687225, abs=1e-5)
    assert dpdpca_noise_scale(0.5, 1e-4, data_norm=0.5) == pytest.approx(8.687225, abs=1e-6)
    assert dpdpca_noise_scale(0.5, 1e-4, calibration="analytic") < dpdpca_noise_scale(0.5, 1e-4)
    # Noise law (target 7): exactly symmetric, upper entries variance τ² within 2 %.
    tau = 4.844805
    G = protocol_noise(6, tau, 1, "proxy", size=5700, random_state=3)[:, 0]
    assert np.array_equal(G, np.swapaxes(G, -1, -2))
    upper = G[(slice(None), *np.triu_indices(6))]
    assert upper.size >= 1e5
    assert np.var(upper) / tau**2 == pytest.approx(1.0, abs=0.02)


def test_noise_split_across_owners_keeps_the_central_variance():
    sigma = 3.0
    for L in (1, 4, 25):
        shares = protocol_noise(4, sigma, L, "owners", size=4000, random_state=L)
        assert shares.shape == (4000, L, 4, 4)
        res = audit.audit_noise_shape(shares.sum(axis=1), sigma, "upper_iid")  # recipe B on the total
        assert res.passed, res
        one_share = audit.audit_noise_shape(shares[:, 0], sigma, "upper_iid")
        assert (L == 1) == one_share.passed  # a single owner's share alone is σ/√L, not σ


# ------------------------------------------------------------------------------ Paillier core
def test_paillier_core_and_fixed_point_encoding(keypair):
    pk, sk = keypair
    enc = lambda x: _crypto.encrypt_fixed(pk, x)  # noqa: E731
    dec = lambda c: decrypt_exact(sk, c)  # noqa: E731
    assert dec(enc(12345)) == 12345
    a, b = 0.7315, -2.25
    assert float(dec(enc(a) + enc(b))) == pytest.approx(a + b, abs=2.0**-51)
    assert float(dec(enc(a) * _crypto.encode_grid_integer(pk, 3, 0))) == pytest.approx(3 * a, abs=2.0**-50)
    assert float(dec(enc(-5.5))) == -5.5  # negatives round-trip through the signed decoding
    x = 0.1
    assert abs(float(dec(enc(x))) - x) <= 2.0**-105 + 1e-300  # grid 16^-26 = 2^-104: error ≤ half a step
    # Constant addition: Enc(a)·(1 + kn) decrypts to a + k.
    c = enc(7)
    c_plus = phe.EncryptedNumber(pk, c.ciphertext(False) * (1 + 5 * 16**-FIXED_EXPONENT * pk.n) % pk.nsquare, c.exponent)
    assert dec(c_plus) == 12
    # Randomised: the same plaintext twice gives different ciphertexts, with the same public exponent.
    c1, c2 = enc(1.5), enc(1.5)
    assert c1.ciphertext(False) != c2.ciphertext(False)
    assert c1.exponent == c2.exponent == FIXED_EXPONENT
    # Exceeding phe's signed range raises instead of wrapping.
    with pytest.raises(OverflowError):
        _crypto.encode_grid_integer(pk, pk.max_int + 1, 0)
    with pytest.raises(OverflowError):
        dec(phe.EncryptedNumber(pk, pk.raw_encrypt(pk.n // 2), 0))
    # numpy scalars are converted before encoding (numpy.int64 would overflow inside phe).
    assert dec(enc(np.int64(2**40))) == 2**40 and float(dec(enc(np.float32(0.5)))) == 0.5


def test_decrypted_sum_of_encrypted_shares_equals_plaintext_sum(keypair):
    pk, sk = keypair
    owners = [DataOwner(X, name=f"owner {i}") for i, X in enumerate(_owners(d=3), start=1)]
    proxy = Proxy()
    proxy.receive_public_key(pk)
    for o in owners:
        o.receive_public_key(pk)
        proxy.receive_shares(o.encrypt_shares(), 3)
    proxy.aggregate()
    enc_R, enc_v, enc_N = proxy.aggregated
    values = np.array([o.plaintext_values() for o in owners], dtype=object)
    plain_sum = values.sum(axis=0)
    decrypted = [decrypt_exact(sk, c) for c in [*enc_R, *enc_v, enc_N]]
    # to encoding precision: every owner's entry is rounded to the grid 2^-52 (error ≤ 2^-53 each)
    L = len(owners)
    for got, want in zip(decrypted, plain_sum):
        assert abs(float(got) - float(want)) <= L * 2.0**-53 * 1.01 + 1e-15 * abs(float(want))
    assert decrypted[-1] == sum(o.n_samples for o in owners)  # N exact


# ------------------------------------------------------------------------- end to end, encrypted
@pytest.mark.parametrize("noise_by", ["proxy", "owners"])
def test_encrypted_release_is_S_plus_protocol_noise(keypair, noise_by):
    owners = _owners()
    res = run_dpdpca(owners, 2, 0.5, 1e-5, random_state=7, keypair=keypair, noise_by=noise_by)
    S, _ = _pooled_scatter(owners)
    G = protocol_noise(3, res.noise_scale_, len(owners), noise_by, random_state=7).sum(axis=0)
    # S' − (S + G') ≈ 0 to encoding precision
    assert np.max(np.abs(res.released_matrix_ - (S + G))) < 1e-12
    assert np.array_equal(res.released_matrix_, res.released_matrix_.T)
    assert res.noise_scale_ == pytest.approx(dpdpca_noise_scale(0.5, 1e-5))
    assert res.privacy_.model == "distributed" and res.privacy_.is_private
    assert res.privacy_.sensitivity == 4.0
    # the same seed through the plaintext twin gives the same release
    twin = PlaintextDPDPCA(2, epsilon=0.5, delta=1e-5, noise_by=noise_by).release(owners, random_state=7)
    np.testing.assert_allclose(res.released_matrix_, twin, atol=1e-12)


@pytest.mark.parametrize("mask_scale", [1.0, 1e3, 1e6])
def test_no_noise_release_is_exact_for_any_mask(keypair, mask_scale):
    owners = _owners()
    res = run_dpdpca(owners, 3, np.inf, 1e-5, keypair=keypair, mask_scale=mask_scale)
    S, X = _pooled_scatter(owners)
    np.testing.assert_allclose(res.released_matrix_, S, rtol=1e-9, atol=1e-12)
    assert res.noise_scale_ == 0.0 and not res.privacy_.is_private
    # v' = v + b: the mask really is there (|b| ~ mask_scale), and S' does not depend on it
    assert np.linalg.norm(res.masked_mean_sum_ - X.sum(axis=0)) > 1e-3 * mask_scale


def test_no_noise_components_match_numpy_pca(keypair):
    owners = _owners(sizes=(9, 4, 11, 6), d=4, seed=3)
    S, _ = _pooled_scatter(owners, data_norm=10.0)
    w, V = np.linalg.eigh(S)
    for k in (1, 2, 3):
        res = run_dpdpca(owners, k, np.inf, 1e-5, keypair=keypair, data_norm=10.0)
        U = res.components_.T
        assert res.components_.shape == (k, 4)
        np.testing.assert_allclose(U.T @ U, np.eye(k), atol=1e-12)
        assert np.linalg.norm(U @ U.T - V[:, -k:] @ V[:, -k:].T) < 1e-8
        np.testing.assert_allclose(res.transform(owners[0]), owners[0] @ res.components_.T)
        assert np.all((res.explained_variance_ratio_ >= 0) & (res.explained_variance_ratio_ <= 1))


def test_aggregation_order_and_process_pool_give_identical_results(keypair):
    owners = _owners(sizes=(3, 4, 5, 6, 2))
    results = [run_dpdpca(owners, 1, 0.5, 1e-5, random_state=11, keypair=keypair, aggregation=agg, n_jobs=jobs)
               for agg, jobs in (("sequential", 1), ("tree", 1), ("sequential", 2))]
    for other in results[1:]:
        assert np.array_equal(other.released_matrix_, results[0].released_matrix_)


def test_operation_counts(keypair):
    M, sizes = 3, (4, 5, 6, 7)
    L, m = len(sizes), M * (M + 1) // 2
    res = run_dpdpca(_owners(sizes=sizes, d=M), 1, 0.5, 1e-5, keypair=keypair)
    ops = res.operations_
    assert ops["owner_encryptions"] == [m + M + 1] * L
    proxy = ops["proxy"]
    # L−1 additions per entry to aggregate; per G entry 2 scalar multiplications, 1 ciphertext
    # addition and 1 constant addition, then one more addition of E[G] to E[R].
    # E[N R'_ij] = E[R_ij]^(N·16^26) · E[v_i]^(b_j) · E[v_j]^(b_i) · E[b_i b_j + N G'_ij + D_ij]:
    # 3 scalar multiplications, 2 ciphertext additions and 1 constant addition per entry
    assert proxy["ciphertext_additions"] == (L - 1) * (m + M + 1) + 2 * m
    assert proxy["scalar_multiplications"] == 3 * m
    assert proxy["constant_additions"] == m + M  # one combined constant per entry, the mask b_i
    assert proxy["rerandomisations"] == m + M + 1  # everything sent to the data user, E[N] included
    assert ops["user_decryptions"] == m + M + 1


# --------------------------------------------------------------------------------- transcript
def _walk(obj, seen=None):
    """Every object reachable from obj through attributes, dicts, lists and tuples."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _walk(v, seen)
    elif isinstance(obj, (list, tuple, set)):
        for v in obj:
            yield from _walk(v, seen)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for v in vars(obj).values():
            yield from _walk(v, seen)


def test_proxy_transcript_holds_only_ciphertexts_the_public_key_and_N(keypair):
    owners = _owners()
    N = sum(len(o) for o in owners)
    res = run_dpdpca(owners, 1, 0.5, 1e-5, random_state=0, keypair=keypair)
    t = res.transcript
    assert set(t.parties) == {"data user", "proxy", "owner 1", "owner 2", "owner 3"}
    received = t.received_by("proxy")
    n_ct = 0
    for msg in received:
        for item in msg.items:
            if isinstance(item, phe.EncryptedNumber):
                n_ct += 1
                assert item.public_key == keypair[0]
                if msg.sender.startswith("owner"):
                    # one public exponent for R and v (no magnitude leak); the count N is an integer
                    assert item.exponent == FIXED_EXPONENT or (item.exponent == 0 and item is msg.items[-1])
            elif isinstance(item, phe.PaillierPublicKey):
                assert msg.sender == "data user"
            else:
                assert type(item) is int and item == N, f"proxy got a plaintext {item!r} from {msg.sender}"
    assert n_ct == 3 * (6 + 3 + 1)
    assert t.by_party()["proxy"]["plaintexts"] == (N,)
    # the data user receives ciphertexts only (never b, G or G' in the clear); owners only the key
    for msg in t.received_by("data user"):
        assert all(isinstance(x, phe.EncryptedNumber) for x in msg.items)
    for name in ("owner 1", "owner 2", "owner 3"):
        assert all(isinstance(x, phe.PaillierPublicKey) for x in t.view(name))
    sizes = [s for msg in received for s in msg.ciphertext_sizes]
    assert max(sizes) <= 2 * KEY_BITS // 8 and min(sizes) > KEY_BITS // 8
    text = t.to_text()
    assert "plaintext 24" in text and "public key" in text


def test_role_separation_no_private_key_outside_the_data_user(keypair):
    agg = encrypt_and_aggregate(_owners(), keypair=keypair)
    agg.release(1, 0.5, 1e-5, random_state=0)
    assert not any(isinstance(x, phe.PaillierPrivateKey) for x in _walk(agg.proxy))
    assert not any(isinstance(x, phe.PaillierPrivateKey) for x in _walk(agg.transcript))
    assert agg.user.holds_private_key
    owner = DataOwner(_owners()[0])
    owner.receive_public_key(keypair[0])
    assert all(isinstance(c, phe.EncryptedNumber) for c in owner.encrypt_shares())


def test_release_can_be_repeated_on_cached_ciphertexts(keypair):
    owners = _owners()
    agg = encrypt_and_aggregate(owners, keypair=keypair)
    n_messages = len(agg.transcript)
    S, _ = _pooled_scatter(owners)
    for eps in (0.2, 0.9):
        res = agg.release(2, eps, 1e-5, random_state=4)
        G = protocol_noise(3, res.noise_scale_, 3, "proxy", random_state=4)[0]
        assert np.max(np.abs(res.released_matrix_ - (S + G))) < 1e-12
        assert len(res.transcript) == n_messages + 2  # E[R'] and E[v'] added; the cache is untouched
    assert len(agg.transcript) == n_messages


def test_mask_has_the_documented_scale_and_comes_from_the_secret():
    proxy = Proxy()
    proxy.n_features, proxy.n_samples = 4, 50
    draws = np.array([proxy.draw_mask(200.0, bytes([i % 256, i // 256]) * 16) for i in range(300)], dtype=float)
    b = draws * 2.0**-104  # mantissas on the grid h = 2^-104 (units of B = 1)
    assert np.std(b) == pytest.approx(200.0, rel=0.1)  # 1200 draws: relative sd ≈ 2 %
    assert len({tuple(r) for r in draws.tolist()}) == 300  # a fresh mask for every secret
    assert proxy.draw_mask(200.0, b"s" * 32) == proxy.draw_mask(200.0, b"s" * 32)  # reproducible
    # every digit is random: the mantissas are not confined to the double's lattice (multiples of 2^k)
    low_bits = [int(m) & 0xFFFF for m in proxy.draw_mask(200.0, b"t" * 32)]
    assert len(set(low_bits)) == 4 and any(x % 2 for x in low_bits)


# ------------------------------------------------------------------------------ audits A and C
def test_recipe_A_on_the_decrypted_aggregate(keypair):
    n = 12
    X, Xp = centred_worst_case_pair(n, 3)

    def decrypted_scatter(Z):
        return run_dpdpca(np.array_split(Z, 3), 1, np.inf, 1e-5, keypair=keypair).released_matrix_

    res = audit.audit_sensitivity(decrypted_scatter, X, Xp, 4.0, tight_fraction=0.999 * (n - 1) / n)
    assert res.passed, res
    assert res.values["measured"] == pytest.approx(4.0 * (n - 1) / n, rel=1e-12)
    # the uncentred worst case (orthogonal swap) is well inside Δ for the centred statistic:
    # S changes by −(N−1)/N·bbᵀ with b = e₂ − e₁, whose upper-triangle vector has norm √3
    Y, Yp = audit.worst_case_pair(n, 3)
    assert audit.audit_sensitivity(decrypted_scatter, Y, Yp, 4.0).values["measured"] == pytest.approx(
        math.sqrt(3) * (n - 1) / n, rel=1e-12)
    # the paper's Δ = 1 is flagged on the same pair
    assert not audit.audit_sensitivity(decrypted_scatter, X, Xp, 1.0).passed


def test_sensitivity_bound_holds_on_random_replace_one_pairs():
    # [our analysis] sup ‖S_D − S_D′‖_F = 4B²(N−1)/N; random pairs in the unit ball never exceed 4B².
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(3000):
        d = int(rng.integers(2, 5))
        n = int(rng.integers(2, 6))
        Z = rng.normal(size=(n + 1, d))
        Z *= (rng.uniform(size=(n + 1, 1)) ** 0.2) / np.linalg.norm(Z, axis=1, keepdims=True)
        D, Dp = Z[:n], np.vstack([Z[: n - 1], Z[n:]])
        diff = centred_scatter(*owner_shares(D)) - centred_scatter(*owner_shares(Dp))
        worst = max(worst, np.linalg.norm(privacy.symmetric_to_vector(diff)))
    assert 2.0 < worst <= 4.0


@pytest.mark.parametrize("calibration", ["classic", "analytic"])
def test_sigma_meets_the_gaussian_condition_and_paper_sigma_does_not(calibration):
    eps, delta = 0.5, 1e-5
    sigma = dpdpca_noise_scale(eps, delta, calibration=calibration)
    assert audit.gaussian_condition_holds(sigma, 4.0, eps, delta, "analytic")
    paper = dpdpca_noise_scale(eps, delta, calibration="paper")
    assert not audit.gaussian_condition_holds(paper, 4.0, eps, delta, "analytic")


class _HalfSigmaDPDPCA(PlaintextDPDPCA):
    """NOT PRIVATE: the protocol's release with half the documented σ (a mutant for recipe C)."""

    def release_parts(self, X):
        parts = super().release_parts(X)
        return type(parts)(parts.statistic, parts.sensitivity, parts.noise_scale / 2, parts.convention)


@pytest.mark.parametrize("noise_by,n_owners", [("proxy", 3), ("owners", 1), ("owners", 4), ("owners", 20)])
def test_recipe_C_total_noise_equals_the_central_sigma_however_split(noise_by, n_owners):
    eps, delta, n = 0.9, 1e-5, 20
    X, Xp = centred_worst_case_pair(n, 3)
    sigma = dpdpca_noise_scale(eps, delta)
    mu = 4.0 / sigma  # the documented claim Δ/σ, computed without the mechanism
    mech = PlaintextDPDPCA(1, epsilon=eps, delta=delta, n_owners=n_owners, noise_by=noise_by)
    res = audit.audit_release_gdp(mech, X, Xp, mu=mu, n_draws=N_DRAWS, random_state=2)
    assert res.passed, res
    # the pair attains (N−1)/N of Δ, so μ̂ estimates 0.95 μ: the split costs no privacy and no accuracy
    assert res.values["mu_hat"] == pytest.approx(mu * (n - 1) / n, abs=4 * res.values["se"])
    assert res.values["noise_sd_along_u"] == pytest.approx(sigma, rel=0.03)
    # and against the black-box reading of (ε, δ)
    assert audit.audit_release_gdp(mech, X, Xp, n_draws=N_DRAWS, random_state=3).passed
    bad = audit.audit_release_gdp(_HalfSigmaDPDPCA(1, epsilon=eps, delta=delta, n_owners=n_owners,
                                                   noise_by=noise_by), X, Xp, mu=mu, n_draws=N_DRAWS, random_state=2)
    assert not bad.passed, bad


def test_recipe_C_flags_the_paper_calibration():
    eps, delta, n = 0.5, 1e-5, 20
    X, Xp = centred_worst_case_pair(n, 3)
    mu_claimed = audit.max_gdp_mu(eps, delta)  # what "(0.5, 1e-5)-DP" allows at most
    with pytest.warns(pp.PrivacyWarning, match="not differentially private"):
        res = audit.audit_release_gdp(PlaintextDPDPCA(1, epsilon=eps, delta=delta, calibration="paper"), X, Xp,
                                      mu=mu_claimed, n_draws=N_DRAWS, random_state=8)
    assert not res.passed, res


# ------------------------------------------------------------------------ calibration="paper"
def test_paper_calibration_warns_and_records_not_private(keypair):
    with pytest.warns(pp.PrivacyWarning, match="not differentially private"):
        res = run_dpdpca(_owners(), 1, 0.5, 1e-5, keypair=keypair, calibration="paper", random_state=0)
    assert not res.privacy_.is_private
    assert "not differentially private" in res.privacy_.note
    assert res.privacy_.sensitivity == 1.0
    assert res.noise_scale_ == pytest.approx(dpdpca_noise_scale(0.5, 1e-5) / 4)
    # the default does not warn about privacy
    with warnings.catch_warnings():
        warnings.simplefilter("error", pp.PrivacyWarning)
        assert run_dpdpca(_owners(), 1, 0.5, 1e-5, keypair=keypair).privacy_.is_private


# --------------------------------------------------------------------------------- bad input
@pytest.fixture
def no_crypto(monkeypatch):
    """Make any key generation or encryption fail loudly: bad input must be refused before."""

    def forbidden(*args, **kwargs):
        raise AssertionError("encryption or key generation happened before validation")

    monkeypatch.setattr(_crypto, "generate_keypair", forbidden)
    monkeypatch.setattr(_crypto, "encrypt_fixed", forbidden)
    monkeypatch.setattr(_crypto, "obfuscators", forbidden)
    monkeypatch.setattr(_crypto, "encrypt_mantissa", forbidden)


@pytest.mark.parametrize(
    "owners,kwargs,match",
    [
        ([np.ones((3, 3)), np.ones((4, 2))], {}, "same number of features"),
        ([np.ones((3, 3)), np.empty((0, 3))], {}, r"owner_datasets\[1\] must have at least 1 sample"),
        ([np.ones((3, 3)), np.array([[1.0, np.nan, 0.0]])], {}, "finite"),
        ([np.array([[np.inf, 0.0, 0.0]])], {}, "finite"),
        ([np.ones((3, 3))], dict(key_length=512), "key_length must be >= 1024"),
        ([np.ones((3, 3))], dict(key_length=128), "key_length must be >= 1024"),
        ([], {}, "at least one data owner"),
        ([np.ones((3, 3))], dict(n_components=4), "n_components"),
        ([np.ones((3, 3))], dict(epsilon=-1.0), "epsilon"),
        ([np.ones((3, 3))], dict(calibration="wishart"), "calibration"),
        ([np.ones((3, 3))], dict(noise_by="nobody"), "noise_by"),
    ],
    ids=["different-d", "zero-rows", "nan", "inf", "key-512", "key-128", "no-owners", "k>d", "eps<0",
         "calibration", "noise_by"],
)
def test_bad_input_is_refused_before_anything_is_encrypted(no_crypto, owners, kwargs, match):
    args = dict(n_components=1, epsilon=0.5, delta=1e-5, key_length=2048)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        run_dpdpca(owners, **args)


def test_bad_input_types(no_crypto):
    with pytest.raises(TypeError, match="list of 2-D arrays"):
        run_dpdpca(np.ones((3, 3)), 1, 0.5, 1e-5)
    with pytest.raises(TypeError, match="key_length must be an int"):
        run_dpdpca([np.ones((3, 3))], 1, 0.5, 1e-5, key_length=2048.0)


def test_owners_clip_to_the_public_bound_and_say_so(keypair):
    owners = [np.full((3, 2), 1.0), np.array([[0.1, 0.2]])]  # three rows of norm √2 > 1
    with warnings.catch_warnings():  # by default nothing data-dependent is said (D and D′ look alike)
        warnings.simplefilter("error", pp.PrivacyWarning)
        run_dpdpca(owners, 1, 0.5, 1e-5, keypair=keypair)
    with pp.privacy.diagnostics(), pytest.warns(pp.PrivacyWarning, match="scaled down") as caught:
        res = run_dpdpca(owners, 1, np.inf, 1e-5, keypair=keypair)
    # the count of clipped rows is data-dependent: no party sends it, the result does not hold it,
    # and the warning does not print it
    assert not hasattr(res, "n_clipped_")
    messages = " ".join(str(w.message) for w in caught if issubclass(w.category, pp.PrivacyWarning))
    assert "3" not in messages.replace("data_norm=1", "")
    assert DataOwner(owners[0]).n_clipped == 3  # the owner's own local knowledge
    S, _ = _pooled_scatter(owners)  # the clipped rows are what was encrypted
    np.testing.assert_allclose(res.released_matrix_, S, atol=1e-12)


def test_small_keys_warn(keypair):
    with pytest.warns(InsecureKeyWarning, match="1024 bits: INSECURE"):
        res = run_dpdpca(_owners(), 1, 0.5, 1e-5, keypair=keypair)
    assert res.key_length == KEY_BITS and "insecure" in res.privacy_.note


def test_missing_phe_gives_an_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "phe", None)
    with pytest.raises(ImportError, match=r"pip install privpca_edu\[crypto\]"):
        _crypto.require_phe()


def test_gmpy2_is_used_by_phe():
    pytest.importorskip("gmpy2")
    assert _crypto.gmpy2_in_use()


def test_epsilon_at_least_one_classic_warns_analytic_does_not(keypair):
    with pytest.warns(pp.PrivacyWarning, match="epsilon < 1"):
        run_dpdpca(_owners(), 1, 2.0, 1e-5, keypair=keypair)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pp.PrivacyWarning)
        res = run_dpdpca(_owners(), 1, 2.0, 1e-5, keypair=keypair, calibration="analytic")
    assert res.noise_scale_ == pytest.approx(privacy.gaussian_sigma(4.0, 2.0, 1e-5, method="analytic"))
    assert math.isfinite(res.noise_scale_)

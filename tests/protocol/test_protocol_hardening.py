"""DPDPCA: a true privacy record, sums that cannot wrap, nothing data-dependent leaked, extreme
input refused by name, and parallel runs identical to sequential ones.

Encrypted runs use 1024-bit keys (INSECURE, tests only) and M ≤ 3, so each run takes well under
a second.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import privpca_edu as pp
from privpca_edu import privacy
from privpca_edu.privacy import dpdpca_noise_scale
from privpca_edu.protocol import FIXED_EXPONENT, DataOwner, run_dpdpca
from privpca_edu.protocol import _crypto

phe = pytest.importorskip("phe")

pytestmark = pytest.mark.filterwarnings("ignore::privpca_edu.protocol.InsecureKeyWarning")

KEY_BITS = 1024  # INSECURE: tests only


@pytest.fixture(scope="module")
def keypair():
    return phe.generate_paillier_keypair(n_length=KEY_BITS)


@pytest.fixture
def no_crypto(monkeypatch):
    """Any key generation or encryption fails loudly: refusals must come before them."""

    def forbidden(*args, **kwargs):
        raise AssertionError("encryption or key generation happened before validation")

    for name in ("generate_keypair", "encrypt_fixed", "obfuscators", "encrypt_mantissa"):
        monkeypatch.setattr(_crypto, name, forbidden, raising=False)


def _owners(sizes=(7, 12, 5), d=3, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, d)) * np.array([0.4, 0.2, 0.1][:d]) + 0.1 for n in sizes]


def _scatter(owners):
    X = np.vstack(owners)
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc


# ------------------------------------------------------------------ the record covers v' = v + b
@pytest.mark.parametrize("mask_scale", [1e-3, 1.0, 30.0, None])
def test_record_composes_the_masked_sum_with_the_release(keypair, mask_scale):
    """v' = v + b is a Gaussian release of v (Δ = 2B, σ = β): the record must include it."""
    eps, delta = 0.5, 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pp.PrivacyWarning)
        res = run_dpdpca(_owners(), 1, eps, delta, keypair=keypair, random_state=0, mask_scale=mask_scale)
    beta = 1000.0 * 24 if mask_scale is None else mask_scale
    rec = res.privacy_
    assert (2.0, beta, 1) in [tuple(r) for r in rec.releases] and len(rec.releases) == 2
    truth = privacy.check_gaussian_guarantee(eps, delta, [(4.0, res.noise_scale_), (2.0, beta)])
    assert rec.is_private == truth.holds
    assert rec.exact_delta == pytest.approx(truth.exact_delta, rel=1e-9)
    if mask_scale is not None and mask_scale <= 1.0:  # the data user learns v almost exactly
        assert not rec.is_private


def test_small_mask_is_recorded_not_private_and_warns(keypair):
    with pytest.warns(pp.PrivacyWarning, match="NOT"):
        res = run_dpdpca(_owners(), 1, 0.5, 1e-5, keypair=keypair, random_state=0, mask_scale=0.01)
    assert not res.privacy_.is_private and res.privacy_.exact_delta > 0.5


def test_analytic_calibration_covers_both_releases_exactly_or_refuses(keypair, no_crypto):
    eps, delta = 2.0, 1e-5
    sigma = dpdpca_noise_scale(eps, delta, calibration="analytic", mask_mu=2.0 / 30.0)
    assert privacy.check_gaussian_guarantee(eps, delta, [(4.0, sigma), (2.0, 30.0)]).holds
    assert sigma > dpdpca_noise_scale(eps, delta, calibration="analytic")  # the mask costs budget
    with pytest.raises(ValueError, match="mask_scale"):
        run_dpdpca(_owners(), 1, eps, delta, calibration="analytic", mask_scale=1.0)


def test_classic_sigma_at_large_epsilon_is_recorded_not_private(keypair):
    with pytest.warns(pp.PrivacyWarning):
        res = run_dpdpca(_owners(), 1, 10.0, 1e-5, keypair=keypair, random_state=0)
    assert not res.privacy_.is_private
    assert res.privacy_.exact_delta == pytest.approx(2.27e-5, rel=0.01)


def test_the_exact_decryptions_hide_the_low_digits_of_v(keypair):
    """The data user decrypts exact integers.  The mask must be random in every digit: with
    b a multiple of N on the grid, v' ≡ v (mod N·h) would give v's low digits away."""
    owners = _owners()
    res = run_dpdpca(owners, 1, 0.5, 1e-5, keypair=keypair, random_state=3)
    pk, sk = keypair
    N, M = res.n_samples_, 3
    h = Fraction(_crypto.BASE) ** FIXED_EXPONENT
    v_tilde = [sum(round(Fraction(float(x)) / h) for x in (o.sum(axis=0)[i] for o in owners)) for i in range(M)]
    enc_R, enc_v = [m.items for m in res.transcript if m.step == "3.7 release"]
    v_prime = [_crypto.decrypt_exact(sk, c) / h for c in enc_v]
    assert all(x.denominator == 1 for x in v_prime)
    residues = [int(x - t) % N for x, t in zip(v_prime, v_tilde)]
    assert any(r != 0 for r in residues), "v' - v is a multiple of N: v mod N leaks"
    # the diagonal of N·R' − v'v'ᵀ: its digits below N·h must not be those of −ṽ²
    scale = Fraction(_crypto.BASE) ** (2 * FIXED_EXPONENT)
    NR_diag = [_crypto.decrypt_exact(sk, enc_R[k]) / scale for k in (0, 3, 5)]
    q = [int(a - x * x) for a, x in zip(NR_diag, v_prime)]
    width = N * int(1 / h)
    assert any((qi + t * t) % width != 0 for qi, t in zip(q, v_tilde))


# -------------------------------------------------------------------------- sums cannot wrap
def test_encoding_refuses_values_whose_declared_sum_could_wrap(keypair):
    pk, sk = keypair
    cap = pk.max_int // 3
    three = [pk.encrypt(_crypto.encode_grid_integer(pk, cap, 0, max_summands=3)) for _ in range(3)]
    assert _crypto.decrypt_exact(sk, three[0] + three[1] + three[2]) == 3 * cap  # decodes right
    with pytest.raises(OverflowError, match="3 such values"):
        _crypto.encode_grid_integer(pk, cap + 1, 0, max_summands=3)
    # the hazard the declaration prevents: three in-range values wrap into a wrong number
    big = [pk.encrypt(_crypto.encode_grid_integer(pk, pk.max_int, 0)) for _ in range(3)]
    assert _crypto.decrypt_exact(sk, big[0] + big[1] + big[2]) != 3 * pk.max_int


def test_plaintext_ranges_are_checked_before_any_key(no_crypto):
    with pytest.raises(ValueError, match="mask_scale"):
        run_dpdpca(_owners(), 1, 0.5, 1e-5, key_length=1024, mask_scale=1e200)
    with pytest.raises(ValueError, match="data_norm"):
        run_dpdpca([o * 1e150 for o in _owners()], 1, 0.5, 1e-5, key_length=1024, data_norm=1e151)
    with pytest.raises(ValueError, match="epsilon"):  # noise of scale ~1e300 cannot be encrypted
        run_dpdpca(_owners(), 1, 1e-298, 1e-5, key_length=1024, calibration="analytic")


# --------------------------------------------------------------------- small, huge and extreme
def test_small_data_keep_their_digits(keypair):
    owners = [o * 1e-9 for o in _owners()]
    res = run_dpdpca(owners, 3, np.inf, 1e-5, keypair=keypair)
    S = _scatter(owners)
    assert np.abs(S).max() > 1e-20
    np.testing.assert_allclose(res.released_matrix_, S, rtol=1e-9, atol=1e-12 * np.abs(S).max())


def test_short_rows_are_encoded_not_refused(keypair):
    # an owner refused rows 1e-14 times shorter than data_norm (a zero row passed) and aborted the whole
    # protocol: a data-dependent outcome.  They are encoded to the grid data_norm²·2⁻¹⁰⁴ instead.
    owners = [o * 1e-14 for o in _owners()]
    res = run_dpdpca(owners, 1, np.inf, 1e-5, keypair=keypair)
    N = sum(len(o) for o in owners)
    np.testing.assert_allclose(res.released_matrix_, _scatter(owners), rtol=0, atol=4 * N * 2.0**-104)
    assert run_dpdpca(owners, 1, 0.5, 1e-5, keypair=keypair).components_.shape == (1, 3)


def test_huge_entries_are_clipped_not_zeroed(keypair):
    owners = [o * 1e200 for o in _owners()]
    with privacy.diagnostics(), pytest.warns(pp.PrivacyWarning, match="scaled down"):
        res = run_dpdpca(owners, 3, np.inf, 1e-5, keypair=keypair)
    unit = [o / np.linalg.norm(o / 1e200, axis=1, keepdims=True) / 1e200 for o in owners]
    np.testing.assert_allclose(res.released_matrix_, _scatter(unit), rtol=1e-9, atol=1e-12)
    assert np.abs(res.released_matrix_).max() > 0.1


@pytest.mark.parametrize("data_norm", [1e300, 1e-300, 1e-200, 1e160, 5e-324])
def test_extreme_data_norm_is_refused_by_name(no_crypto, data_norm):
    with pytest.raises(ValueError, match="data_norm"):
        run_dpdpca(_owners(), 1, 0.5, 1e-5, key_length=1024, data_norm=data_norm)
    with pytest.raises(ValueError, match="data_norm"):  # σ = σ₁·B² would overflow or underflow
        dpdpca_noise_scale(0.5, 1e-5, data_norm=data_norm)


def test_moderate_data_norm_scales_the_release(keypair):
    owners = _owners()
    a = run_dpdpca(owners, 2, 0.5, 1e-5, keypair=keypair, random_state=1)
    b = run_dpdpca([o * 1e50 for o in owners], 2, 0.5, 1e-5, keypair=keypair, random_state=1, data_norm=1e50)
    np.testing.assert_allclose(b.released_matrix_ / 1e100, a.released_matrix_, rtol=1e-12, atol=1e-12)
    assert b.privacy_.sensitivity == pytest.approx(4e100) and b.privacy_.is_private


# ------------------------------------------------------------------- parallel = sequential
@pytest.mark.parametrize("noise_by", ["proxy", "owners"])
def test_parallel_and_sequential_runs_are_bit_identical(keypair, noise_by):
    owners = _owners(sizes=(4, 6, 5))
    runs = [run_dpdpca(owners, 2, 0.5, 1e-5, keypair=keypair, random_state=5, n_jobs=jobs, noise_by=noise_by)
            for jobs in (1, 2)]
    a, b = runs
    assert np.array_equal(a.released_matrix_, b.released_matrix_)
    assert np.array_equal(a.masked_mean_sum_, b.masked_mean_sum_)
    assert np.array_equal(a.components_, b.components_)
    # the transcripts carry the same ciphertexts, message by message (encryption randomness included)
    assert [(m.step, m.sender, m.receiver) for m in a.transcript] == [(m.step, m.sender, m.receiver)
                                                                      for m in b.transcript]
    for ma, mb in zip(a.transcript, b.transcript):
        assert [c.ciphertext(be_secure=False) for c in ma.ciphertexts] == [
            c.ciphertext(be_secure=False) for c in mb.ciphertexts]
        assert [c.exponent for c in ma.ciphertexts] == [c.exponent for c in mb.ciphertexts]
    # a different seed gives different ciphertexts (fresh randomness), the same data
    c = run_dpdpca(owners, 2, np.inf, 1e-5, keypair=keypair, random_state=6)
    assert c.transcript.messages[4].ciphertexts[0].ciphertext(False) != a.transcript.messages[4].ciphertexts[0].ciphertext(False)


@pytest.mark.parametrize("n_jobs,error", [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError),
                                           ("2", TypeError)])
def test_n_jobs_is_validated_before_anything_runs(no_crypto, n_jobs, error):
    with pytest.raises(error, match="n_jobs"):
        run_dpdpca(_owners(), 1, 0.5, 1e-5, key_length=1024, n_jobs=n_jobs)


def test_n_jobs_none_means_one(keypair):
    res = run_dpdpca(_owners(), 1, 0.5, 1e-5, keypair=keypair, random_state=0, n_jobs=None)
    ref = run_dpdpca(_owners(), 1, 0.5, 1e-5, keypair=keypair, random_state=0)
    assert np.array_equal(res.released_matrix_, ref.released_matrix_)


def test_owner_keeps_its_clipping_count_to_itself():
    owner = DataOwner(np.array([[3.0, 4.0], [0.1, 0.0]]), data_norm=1.0)
    assert owner.n_clipped == 1
    np.testing.assert_allclose(np.linalg.norm(owner._X, axis=1), [1.0, 0.1])
    assert math.isclose(owner.shares()[0][0, 0], 0.36 + 0.01)

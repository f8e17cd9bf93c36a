"""The axioms a checked Coq proof may assume: a short, reviewed list, by exact kernel name.

A proof is "proved" only when every axiom it assumes is listed here (:mod:`prover.coq.verify`).
Names are the fully qualified kernel names coqchk prints, and they mean what they say only
because coqchk took every ``Coq.*`` library from the installed standard library
(:mod:`prover.coq.provenance`). Anything else -- ``Coq.Compat.AdmitAxiom.proof_admitted``, the
extraction realizers of ``Coq.extraction.ExtrOcamlIntConv``, every axiom, parameter or admitted
lemma of a project, an installed library or a prelude -- makes a proof "not proved (assumes X)".

Each entry is known to be consistent with Coq 8.16's theory (predicative ``Set``): the logical
axioms hold together in the set-theoretic model of CIC; the primitive types and operations, and
the specifications the library states about them, describe what the kernel computes (trusting
them is trusting the kernel); the sealed fields of the real numbers' and ``ssrunder``'s modules
are not assumptions at all, but coqchk lists the fields of a module sealed by a signature as
axioms (their implementations are in the same files).

The list is the whole of the 173 axioms the 8.16 standard library declares, less the nine above;
``tests/integration/test_adversarial_coq_provenance.py`` checks it against coqchk's summary of a
file that requires every library module, so a name that drifts is found.
"""

from __future__ import annotations


def _group(reason: str, module: str, names: str) -> dict[str, str]:
    return {f"{module}.{name}": reason for name in names.split()}


_INT63_OPS = ("int lsl lsr land lor lxor asr add sub mul mulc div mod divs mods eqb ltb leb ltsb lesb addc addcarryc "
              "subc subcarryc diveucl diveucl_21 addmuldiv compare compares head0 tail0")
_FLOAT_OPS = ("float classify abs sqrt opp eqb ltb leb compare Leibniz.eqb mul add sub div of_uint63 normfr_mantissa "
              "frshiftexp ldshiftexp next_up next_down")
_ARRAY_OPS = "array make get default set length copy"
_UINT63_SPECS = ("of_to_Z lsl_spec lsr_spec land_spec lor_spec lxor_spec add_spec sub_spec mul_spec mulc_spec div_spec "
                 "mod_spec eqb_correct eqb_refl ltb_spec leb_spec compare_def_spec head0_spec tail0_spec addc_def_spec "
                 "addcarryc_def_spec subc_def_spec subcarryc_def_spec diveucl_def_spec diveucl_21_spec "
                 "addmuldiv_def_spec")
_FLOAT_SPECS = ("Prim2SF_valid SF2Prim_Prim2SF Prim2SF_SF2Prim opp_spec abs_spec eqb_spec ltb_spec leb_spec compare_spec "
                "Leibniz.eqb_spec classify_spec mul_spec add_spec sub_spec div_spec sqrt_spec of_uint63_spec "
                "normfr_mantissa_spec frshiftexp_spec ldshiftexp_spec next_up_spec next_down_spec")
_ARRAY_SPECS = ("get_out_of_bounds get_set_same get_set_other default_set get_make leb_length length_make length_set "
                "get_copy length_copy array_ext")
_REALS_SEALED = ("RbaseSymbolsImpl.R RbaseSymbolsImpl.Rabst RbaseSymbolsImpl.Rrepr RbaseSymbolsImpl.Rquot1 "
                 "RbaseSymbolsImpl.Rquot2 RbaseSymbolsImpl.R0 RbaseSymbolsImpl.R1 RbaseSymbolsImpl.Rplus "
                 "RbaseSymbolsImpl.Rmult RbaseSymbolsImpl.Ropp RbaseSymbolsImpl.Rlt RbaseSymbolsImpl.R0_def "
                 "RbaseSymbolsImpl.R1_def RbaseSymbolsImpl.Rplus_def RbaseSymbolsImpl.Rmult_def "
                 "RbaseSymbolsImpl.Ropp_def RbaseSymbolsImpl.Rlt_def RinvImpl.Rinv RinvImpl.Rinv_def")
_UNDER_SEALED = ("Under_rel.Under_rel Under_rel.Under_rel_from_rel Under_rel.Under_relE Under_rel.Over_rel "
                 "Under_rel.over_rel Under_rel.over_rel_done Under_rel.under_rel_done")

#: exact kernel name -> why it is safe to assume
TRUSTED_AXIOMS: dict[str, str] = {
    "Coq.Logic.Classical_Prop.classic": "excluded middle: classical logic, true in the set-theoretic model",
    "Coq.Logic.FunctionalExtensionality.functional_extensionality_dep":
        "functional extensionality, true in the set-theoretic model",
    "Coq.Logic.PropExtensionality.propositional_extensionality":
        "propositional extensionality, true in the proof-irrelevant set-theoretic model",
    "Coq.Logic.ProofIrrelevance.proof_irrelevance": "proof irrelevance, a consequence of classic + propext",
    "Coq.Logic.Eqdep.Eq_rect_eq.eq_rect_eq": "Streicher's K / uniqueness of identity proofs (Eqdep, JMeq_eq)",
    "Coq.Logic.Description.constructive_definite_description":
        "unique choice into Type, true in the set-theoretic model",
    "Coq.Logic.IndefiniteDescription.constructive_indefinite_description":
        "choice into Type (Hilbert's epsilon), true in the set-theoretic model with choice",
    "Coq.Logic.ClassicalEpsilon.constructive_indefinite_description":
        "choice into Type (Hilbert's epsilon), true in the set-theoretic model with choice",
    "Coq.Logic.Epsilon.epsilon_statement": "Hilbert's epsilon for inhabited types, true with choice",
    "Coq.Logic.RelationalChoice.relational_choice": "relational choice, true with choice",
    "Coq.Logic.ClassicalUniqueChoice.dependent_unique_choice": "dependent unique choice, true in the set-theoretic model",
    "Coq.Logic.ExtensionalFunctionRepresentative.extensional_function_representative":
        "a canonical representative of extensionally equal functions, true with choice",
    "Coq.Sets.Ensembles.Extensionality_Ensembles": "extensionality of sets, follows from funext + propext",
    "Coq.Reals.ClassicalDedekindReals.sig_forall_dec":
        "limited principle of omniscience in Type: the classical reals' axiom, true with choice",
    "Coq.Reals.ClassicalDedekindReals.sig_not_dec": "decidability of double negation in Type: the classical reals' axiom",
    **_group("sealed field of the real numbers' module: defined in Reals/Rdefinitions.v, hidden by its signature",
             "Coq.Reals.Rdefinitions", _REALS_SEALED),
    **_group("sealed field of ssreflect's under/over module: defined in ssr/ssrunder.v, hidden by its signature",
             "Coq.ssr.ssrunder", _UNDER_SEALED),
    **_group("kernel primitive (Primitive): 63-bit machine integers, computed by the kernel",
             "Coq.Numbers.Cyclic.Int63.PrimInt63", _INT63_OPS),
    **_group("kernel primitive (Primitive): IEEE-754 binary64 floats, computed by the kernel",
             "Coq.Floats.PrimFloat", _FLOAT_OPS),
    **_group("kernel primitive (Primitive): persistent arrays, computed by the kernel", "Coq.Array.PArray", _ARRAY_OPS),
    **_group("specification of a primitive 63-bit integer operation: what the kernel computes",
             "Coq.Numbers.Cyclic.Int63.Uint63", _UINT63_SPECS),
    **_group("specification of a primitive signed 63-bit integer operation: what the kernel computes",
             "Coq.Numbers.Cyclic.Int63.Sint63", "asr_spec div_spec mod_spec ltb_spec leb_spec compare_spec"),
    **_group("specification of a primitive float operation against the Flocq-style model: what the kernel computes",
             "Coq.Floats.FloatAxioms", _FLOAT_SPECS),
    **_group("specification of a primitive array operation: what the kernel computes", "Coq.Array.PArray", _ARRAY_SPECS),
}


def is_trusted(name: str) -> bool:
    """Whether the axiom of kernel name ``name`` (fully qualified) may be assumed."""
    return name in TRUSTED_AXIOMS


def label(name: str) -> str:
    """The last component of a (partially) qualified name: ``classic`` of ``Coq.Logic.Classical_Prop.classic``.
    A constant keeps its label through module aliases, functor applications and ``Include``."""
    return name.rpartition(".")[2]

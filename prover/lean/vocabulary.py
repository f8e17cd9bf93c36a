"""The words of Lean 4 tactic syntax the policy accepts where a tactic starts, and the commands it
knows to refuse anywhere.

``TACTICS`` is an allow-list: a word at a tactic position (see :func:`prover.lean.policy.tactic_positions`)
that is not in it is refused, so a command, or a tactic added by some library the list has not
reviewed, fails closed. It holds the tactics of Lean 4 core, Batteries, Aesop and Mathlib that
proofs use: every word found at a tactic position in 40,968 tactic proofs of Mathlib (commit
b2540cf9, ``/work/shared/data/mathlib4-b2540cf9/proofs.jsonl``) and in the 2,949 tactics of
LeanDojo's benchmark sample, less the commands among them, plus core tactics that corpus predates
(``omega``, ``nofun``, ``and_intros``...). Left out on purpose, whatever their origin: give-ups
(``sorry``, ``admit``, ``stop``), searches that print a suggestion (``exact?``, ``hint``,
``rw_search``, ``polyrith``), tactics that trust the compiler (``native_decide``, ``bv_decide``),
meta-programming (``run_tac``) and ``set_option ... in``.

``COMMANDS`` are refused wherever they appear, not only where a tactic starts: a command keyword
ends the term before it, and Lean then reads it as a command of the file (after a complete proof,
or after the parse error it causes). A command this list lacks is refused where a tactic starts
(by ``TACTICS``) but not in the middle of a line; see docs/lean.md.
"""

from __future__ import annotations

TACTICS = frozenset("""
_ abel abel! abel_nf abel_nf! absurd ac_rfl aesop aesop_cat aesop_cat_nonterminal aesop_subst
all_goals and_intros any_goals apply apply_assumption apply_congr apply_fun apply_mod_cast apply_rules
arg assumption assumption' assumption_mod_cast beta_reduce bound borelize by_cases by_contra
by_contra! by_contra' calc cancel_denoms case case' cases cases' cases_type casesm change choose
choose! classical classical! clear clear! clear_value coherence compute_degree compute_degree!
congr congr! congrm constructor constructorm continuity contradiction contrapose contrapose! conv
conv_lhs conv_rhs convert convert_to decide decreasing_tactic delta done dsimp econstructor else
enter eq_refl erw exact exact_mod_cast exacts exfalso exists existsi ext ext1 extract_lets fail
fapply fconstructor field_simp filter_upwards fin_cases first focus fun_prop funext gcongr
generalize generalize_proofs group guard_hyp guard_target have haveI if induction induction'
infer_instance inhabit injection injections interval_cases intro intros introv iterate left let
letI lhs lift lift_lets linarith linarith! linear_combination match measurability mod_cases mono
monicity next nlinarith nlinarith! nofun nomatch noncomm_ring nontriviality norm_cast norm_cast0
norm_num norm_num1 nth_rewrite nth_rw obtain omega on_goal pattern peel pick_goal positivity
push_cast push_neg qify rcases rcongr reduce refine refine' refine_lift rename rename' rename_i
repeat repeat' replace revert rewrite rfl rhs right ring ring! ring1 ring_nf ring_nf! rintro
rotate_left rotate_right rsuffices rw rw_mod_cast rwa set set! show simp simp! simp_all simp_all!
simp_arith simp_intro simp_rw simp_wf simpa simpa! skip slice slice_lhs slice_rhs solve
solve_by_elim specialize split split_ands split_ifs subst subst_eqs subst_vars substs suffices swap
swap_var symm tauto tfae_finish tfae_have then trans transitivity triv trivial try unfold
unfold_let unfold_projs use use! whnf with_reducible with_reducible_and_instances with_unfolding_all
wlog zeta zify
C_simp bddDefault bitwise_assoc_tac derivative_simp eval_simp ghost_calc ghost_fun_tac ghost_simp
infer_param init_ring isBoundedDefault map_fun_tac map_simp mem_tac mem_tac_aux mfld_set_tac
mv_bisim pgame_wf_tac pi_lower_bound pi_upper_bound pure_coherence restrict_tac sz_positivity
toFinite_tac to_encard_tac transfer transfer_rw unit_interval volume_tac witt_truncateFun_tac
""".split())

# Declarations, their modifiers and attributes, scoping, options, syntax extension, code
# generation and Mathlib's own commands: none has a place in a proof.
COMMANDS = frozenset("""
theorem lemma def abbrev example instance axiom opaque structure class inductive coinductive mutual
namespace section end universe variable omit include import attribute export where deriving
private protected noncomputable partial nonrec set_option
macro macro_rules syntax elab elab_rules declare_syntax_cat notation notation3 infix infixl infixr
prefix postfix binder_predicate initialize builtin_initialize register_option register_builtin_option
register_simp_attr register_label_attr register_tactic_tag simproc dsimproc simproc_decl dsimproc_decl
seal unseal add_decl_doc init_quot grind_pattern termination_by decreasing_by alias irreducible_def
library_note assert_not_exists suppress_compilation unsuppress_compilation compile_inductive
compile_def declare_config_elab declare_simp_like_tactic initialize_simps_projections
add_aesop_rules erase_aesop_rules declare_aesop_rule_sets mk_iff_of_inductive_prop sudo proof_wanted
unif_hint gen_injective_theorems
""".split())
